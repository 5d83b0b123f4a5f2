// Types for the undici module imported by http.ts (undici types its package root only).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
