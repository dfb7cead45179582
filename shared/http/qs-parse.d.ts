/**
 * qs's parser alone: `qs`'s entry also loads its stringifier, which no function uses, and esbuild bundles
 * whatever a CommonJS module requires. @types/qs types only the entry.
 */
declare module 'qs/lib/parse.js' {
  import type { parse } from 'qs';
  const parseBracketNotation: typeof parse;
  export default parseBracketNotation;
}
