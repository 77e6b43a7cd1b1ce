// What every Elasticsearch route shares: the product header its clients require, and the rule
// that each path also answers with a trailing slash (the Python client asks for `GET /api/v1/es/`,
// joining its path `/` to the base URL; a shipper's base URL may end with a slash too).

/** `X-Elastic-Product: Elasticsearch`: the official clients refuse a 2xx reply without it. */
export const ELASTIC_PRODUCT = ['X-Elastic-Product', 'Elasticsearch'] as const;

/** `path` and `path/` (a path ending in a wildcard takes both already). */
export function esPaths(path: string): string[] {
  return path.endsWith('*}') ? [path] : [path, `${path}/`];
}
