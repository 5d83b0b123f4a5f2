// Types for the undici internals imported by src/http/undici.ts (undici types its package root only).
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import { ProxyAgent } from 'undici';
  export default ProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

declare module 'undici/lib/api/index.js' {
  const api: Record<string, (...args: never[]) => unknown>;
  export default api;
}

declare module 'undici/lib/dispatcher/socks5-proxy-agent.js' {
  import { Socks5ProxyAgent } from 'undici';
  export default Socks5ProxyAgent;
}

declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export default buildConnector;
}

declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}

declare module 'undici/lib/dispatcher/client.js' {
  import { Client } from 'undici';
  export default Client;
}
