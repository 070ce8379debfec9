import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's runtime parts, loaded when a session first starts an MCP server rather than when the
 * worker starts: requiring them (with ajv and zod-to-json-schema) was a tenth of a worker's imports
 * (bench:startup), and most sessions configure no server. Synchronous CommonJS requires, so that
 * source (tsx) and built code load the same copy.
 */
export interface McpSdk {
  Client: typeof ClientModule.Client;
  StdioClientTransport: typeof StdioModule.StdioClientTransport;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  CallToolResultSchema: typeof TypesModule.CallToolResultSchema;
}

let sdk: McpSdk | undefined;

export function mcpSdk(): McpSdk {
  /* eslint-disable @typescript-eslint/no-require-imports -- deliberately lazy (see above) */
  sdk ??= {
    Client: (require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule).Client,
    StdioClientTransport: (require('@modelcontextprotocol/sdk/client/stdio.js') as typeof StdioModule).StdioClientTransport,
    StreamableHTTPClientTransport: (require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof HttpModule).StreamableHTTPClientTransport,
    CallToolResultSchema: (require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule).CallToolResultSchema,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return sdk;
}
