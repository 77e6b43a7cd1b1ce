// CONNECTION = (...) of COPY INTO, and an external table's OPTIONS, as CnosDB's
// parse_connection_options reads them: the location's scheme decides (s3://<bucket>/<path> takes
// endpoint_url, region, access_key_id, secret_key, token, virtual_hosted_style; a local path
// ignores them), an unknown option is "Semantic error: Unsupported option [x]", and S3 without a
// region is its builder's "`region` must be initialized".

import { UserError } from '../../core/errors.js';
import { semanticError } from '../errors.js';
import type { OptionValue, SqlOption } from '../sql/ast.js';
import type { ObjectStoreConnection } from './external-files.js';

/** The scheme of a location URL (`s3`), lower case, or undefined for a path. */
export function locationScheme(location: string): string | undefined {
  return /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(location)?.[1]?.toLowerCase();
}

function text(v: OptionValue): string {
  if (v.kind === 'string') return v.value;
  const shown = v.kind === 'number' ? v.text : v.kind === 'boolean' ? String(v.value) : 'NULL';
  throw new UserError('sqlParse', `sql parser error: expected string value, but got ${shown}`);
}

function bool(v: OptionValue): boolean {
  if (v.kind === 'boolean') return v.value;
  if (v.kind === 'string' && /^(true|false)$/i.test(v.value)) return v.value.toLowerCase() === 'true';
  throw new UserError(
    'sqlParse',
    `sql parser error: expected boolean value, but got ${v.kind === 'string' ? `'${v.value}'` : v.kind === 'number' ? v.text : 'NULL'}`,
  );
}

/** The connection of `location` from its options; undefined for a local location. */
export function connectionOf(location: string, options: readonly SqlOption[]): ObjectStoreConnection | undefined {
  const scheme = locationScheme(location);
  if (scheme === undefined || scheme === 'file') return undefined;
  if (scheme !== 's3') return undefined; // the host refuses the scheme with its own error
  const bucket = /^s3:\/\/([^/]+)/i.exec(location)?.[1];
  if (bucket === undefined || bucket === '') throw semanticError('Lost bucket in url');
  const c: { -readonly [K in keyof ObjectStoreConnection]?: ObjectStoreConnection[K] } = {
    kind: 's3',
    virtualHostedStyle: true,
  };
  for (const { name, value } of options) {
    switch (name.toLowerCase()) {
      case 'endpoint_url':
        c.endpointUrl = text(value);
        break;
      case 'region':
        c.region = text(value);
        break;
      case 'access_key_id':
        c.accessKeyId = text(value);
        break;
      case 'secret_key':
        c.secretKey = text(value);
        break;
      case 'token':
        c.token = text(value);
        break;
      case 'virtual_hosted_style':
        c.virtualHostedStyle = bool(value);
        break;
      default:
        throw semanticError(`Unsupported option [${name}]`);
    }
  }
  if (c.region === undefined) throw semanticError('`region` must be initialized');
  return c as ObjectStoreConnection;
}
