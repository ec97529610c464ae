export { gapflowMcp, RESOURCES, type GapflowMcp } from './server.js';
export { gapflowTools, type McpContext } from './tools.js';
export { serveMcpHttp, type McpHttp } from './http.js';
