import fs from 'node:fs';
import path from 'node:path';
// The project resolves modules the CommonJS way, which does not read vega-lite's `exports`: its types by path.
import type { TopLevelSpec } from 'vega-lite/build/index';
import { renderChartPng } from './render-chart';

/** A benchmark's results as files: `<name>.json` (every figure), `<name>.md` (a table), `<name>.png` (a chart). */
export interface Report {
  dir: string;
  name: string;
  json: unknown;
  markdown: string;
  chart?: TopLevelSpec;
}

export interface WrittenReport {
  json: string;
  markdown: string;
  png?: string;
}

/**
 * Writes a report's files (the directory is created) and answers their paths. The chart is drawn
 * last: a chart that cannot be drawn (no fonts, a bad spec) does not cost the figures.
 */
export async function writeReport(report: Report): Promise<WrittenReport> {
  fs.mkdirSync(report.dir, { recursive: true });
  const file = (ext: string) => path.join(report.dir, `${report.name}.${ext}`);
  fs.writeFileSync(file('json'), `${JSON.stringify(report.json, null, 2)}\n`);
  fs.writeFileSync(file('md'), report.markdown.endsWith('\n') ? report.markdown : `${report.markdown}\n`);
  if (!report.chart) return { json: file('json'), markdown: file('md') };
  fs.writeFileSync(file('png'), await renderChartPng(report.chart));
  return { json: file('json'), markdown: file('md'), png: file('png') };
}
