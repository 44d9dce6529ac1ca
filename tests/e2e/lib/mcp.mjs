// MCP clients for the e2e tests: the official v1 SDK (initialize-era revisions) and the v2
// client (2026-07-28), each over Streamable HTTP to a server from server.mjs, plus raw JSON-RPC
// over fetch for what no client sends on purpose.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { request } from './server.mjs';

const CLIENT_INFO = { name: 'cilia-e2e', version: '1.0.0' };

function authHeaders(key) {
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// A connected v1 client; `url` defaults to the server's /mcp. Returns {client, transport}.
export async function connectV1(server, { key = server.key, url = `${server.url}/mcp` } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: authHeaders(key) } });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, transport };
}

// A connected v2 client; `mode` is the version negotiation: 'legacy', 'auto' or {pin}.
export async function connectV2(server, { key = server.key, mode = { pin: '2026-07-28' } } = {}) {
  const transport = new TransportV2(new URL(`${server.url}/mcp`), { requestInit: { headers: authHeaders(key) } });
  const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, transport };
}

// The text of a tool result's first content block.
export const textOf = (result) => result.content?.[0]?.text ?? '';

// A raw POST of one JSON-RPC body to /mcp.
export function postRpc(server, body, { key = server.key, headers = {} } = {}) {
  return request(server.url, '/mcp', {
    method: 'POST',
    body,
    key,
    headers: { accept: 'application/json, text/event-stream', ...headers },
  });
}

// The headers and _meta a 2026-07-28 request carries.
export function statelessRequest(id, method, params = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (params.name) headers['mcp-name'] = params.name;
  return { body, headers };
}
