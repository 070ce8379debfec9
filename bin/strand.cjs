#!/usr/bin/env node
'use strict';
// The `strand` command (package.json "bin"): runs services/cli/main.ts with tsx's loaders registered
// in this very process, exactly as `node --import tsx` does (importing the `tsx` package registers
// its CommonJS and ESM hooks), so there is no wrapper process and nothing is printed on stdout but
// what the command itself writes (`strand rpc-edn` keeps stdout for frames).
const path = require('node:path');

import('tsx').then(
  () => require(path.join(__dirname, '..', 'services', 'cli', 'main.ts')),
  (err) => {
    process.stderr.write(`strand: cannot load tsx (run \`npm install\` in ${path.join(__dirname, '..')}): ${err.message}\n`);
    process.exit(1);
  },
);
