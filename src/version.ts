declare const __SVC_VERSION__: string | undefined;

/** Injected by the build (scripts/build.mjs) and by vitest's `define`. */
export const VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : '0.0.0-dev';
