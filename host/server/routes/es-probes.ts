// The Elasticsearch requests that clients and shippers make before their first bulk request,
// answered as Elasticsearch 8 answers them, minimal but valid: the info answer (`GET /`, whose
// version Beats compare with their own: Filebeat 8.6 refuses an 8.5 server unless told
// `allow_older_versions`, so this is the last 8.x), cluster health (real: 503 while Sundial starts
// or stops), license and features, and the setup calls of index templates, ILM policies, ingest
// pipelines, data streams and aliases: Sundial keeps none of these, so a read finds none (404, or
// an empty list) and a write is acknowledged and changes nothing; a shipper then creates what it
// found missing and goes on. These need no credentials, as CnosDB's handshake routes. The index
// routes (`HEAD|GET|PUT /{index}`; hapi answers HEAD with the GET route) read the catalog and need them: an index is a table of the
// request's database, created by its first write.

import type { Request, ResponseObject, ResponseToolkit, RouteOptions, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { ValueType } from '../../core/write-batch.js';
import { type ColumnDef, type DatabaseDef, requireDatabaseAccess } from '../../meta/index.js';
import { jsonBody } from '../json-body.js';
import { databaseOf, tenantOf } from '../params.js';
import { userOf, type ServerContext } from '../context.js';
import { ELASTIC_PRODUCT, esPaths } from './es-paths.js';
import { UNREAD_PAYLOAD } from './fallback.js';

/** The Elasticsearch release answered as, and its Lucene. */
export const ES_VERSION = '8.19.0';
const LUCENE_VERSION = '9.12.1';
const CLUSTER = 'sundial';
/** What Elasticsearch reports before it knows its cluster's UUID. */
const NO_UUID = '_na_';

function esJson(h: ResponseToolkit, value: unknown, status = 200): ResponseObject {
  return jsonBody(h, JSON.stringify(value))
    .code(status)
    .header(...ELASTIC_PRODUCT);
}

/** Elasticsearch's error object, for the answers that are not Sundial errors (a template not found). */
function esError(h: ResponseToolkit, status: number, type: string, reason: string): ResponseObject {
  const cause = { type, reason };
  return esJson(h, { error: { root_cause: [cause], ...cause }, status }, status);
}

const INFO = {
  name: CLUSTER,
  cluster_name: CLUSTER,
  cluster_uuid: NO_UUID,
  version: {
    number: ES_VERSION,
    build_flavor: 'default',
    build_type: 'tar',
    build_snapshot: false,
    lucene_version: LUCENE_VERSION,
    minimum_wire_compatibility_version: '7.17.0',
    minimum_index_compatibility_version: '7.0.0',
  },
  tagline: 'You Know, for Search',
};

const REFRESHED = { _shards: { total: 1, successful: 1, failed: 0 } };

/** `basic`: the license every Elasticsearch 8 starts with (there is no `oss` in 8). */
const LICENSE = {
  status: 'active',
  uid: '00000000-0000-0000-0000-000000000000',
  type: 'basic',
  issue_date: '1970-01-01T00:00:00.000Z',
  issue_date_in_millis: 0,
  max_nodes: 1000,
  max_resource_units: null,
  issued_to: CLUSTER,
  issuer: 'elasticsearch',
  start_date_in_millis: -1,
};

/**
 * The setup APIs whose objects Sundial does not keep: the path, the key of its empty listing
 * (`undefined`: an empty object, as Elasticsearch lists policies, pipelines and legacy
 * templates), and what Elasticsearch calls a missing one.
 */
const SETUP_APIS: ReadonlyArray<{
  path: string;
  list: string | undefined;
  missing: (name: string) => [type: string, reason: string];
}> = [
  {
    path: '_index_template',
    list: 'index_templates',
    missing: (n) => ['resource_not_found_exception', `index template matching [${n}] not found`],
  },
  {
    path: '_component_template',
    list: 'component_templates',
    missing: (n) => ['resource_not_found_exception', `component template matching [${n}] not found`],
  },
  {
    path: '_template',
    list: undefined,
    missing: (n) => ['resource_not_found_exception', `index template matching [${n}] not found`],
  },
  {
    path: '_ilm/policy',
    list: undefined,
    missing: (n) => ['resource_not_found_exception', `Lifecycle policy not found: ${n}`],
  },
  {
    path: '_ingest/pipeline',
    list: undefined,
    missing: (n) => ['resource_not_found_exception', `pipeline [${n}] is missing`],
  },
  { path: '_data_stream', list: 'data_streams', missing: (n) => ['index_not_found_exception', `no such index [${n}]`] },
  { path: '_alias', list: undefined, missing: (n) => ['aliases_not_found_exception', `aliases [${n}] missing`] },
];

/** An index mapping's type for a column (tags are keywords, as Beats map their dimensions). */
function mappingType(c: ColumnDef): string {
  switch (c.type) {
    case ValueType.Tag:
      return 'keyword';
    case ValueType.Double:
      return 'double';
    case ValueType.BigInt:
      return 'long';
    case ValueType.Unsigned:
      return 'unsigned_long';
    case ValueType.Boolean:
      return 'boolean';
    default:
      return 'text';
  }
}

export function esProbeRoutes(ctx: ServerContext): ServerRoute[] {
  const open = { plugins: { sundial: { auth: false, errors: 'es' as const } } };
  // Any body, never read: a template a shipper PUTs is not JSON hapi must parse.
  const openAnyBody = { ...open, payload: UNREAD_PAYLOAD };
  const route = (
    method: ServerRoute['method'],
    path: string,
    options: RouteOptions,
    handler: ServerRoute['handler'],
  ): ServerRoute[] => esPaths(path).map((p) => ({ method, path: p, options, handler }));

  /** The request's database, with Read (a look) or Write (a create) on it. */
  const databaseFor = (request: Request, need: 'read' | 'write'): DatabaseDef =>
    requireDatabaseAccess(
      ctx.services().storage.catalog,
      userOf(request),
      tenantOf(request),
      databaseOf(request),
      need,
    );
  const noSuchIndex = (index: string) => new UserError('tableNotFound', `no such index [${index}]`);
  /** Elasticsearch's rule for the first character; `_` starts its own APIs, which `/{index}` must not take for an index. */
  const badIndex = (h: ResponseToolkit, index: string): ResponseObject | undefined =>
    /^[_+-]/.test(index)
      ? esError(
          h,
          400,
          'invalid_index_name_exception',
          `Invalid index name [${index}], must not start with '_', '-', '+'`,
        )
      : undefined;
  const indexOptions = { plugins: { sundial: { errors: 'es' as const } } };

  return [
    ...route('GET', '/api/v1/es', open, (_r, h) => esJson(h, INFO)),
    ...route('GET', '/api/v1/es/_cluster/health', open, (_r, h) => esJson(h, health())),
    ...route('GET', '/api/v1/es/_cluster/health/{index}', open, (_r, h) => esJson(h, health())),
    ...route('GET', '/api/v1/es/_cat/health', open, (request, h) => {
      ctx.services();
      const now = new Date();
      const row = {
        epoch: String(Math.floor(now.getTime() / 1000)),
        timestamp: now.toISOString().slice(11, 19),
        cluster: CLUSTER,
        status: 'green',
        'node.total': '1',
        'node.data': '1',
        shards: '0',
        pri: '0',
        relo: '0',
        init: '0',
        unassign: '0',
        pending_tasks: '0',
        max_task_wait_time: '-',
        active_shards_percent: '100.0%',
      };
      if (request.query.format === 'json') return esJson(h, [row]);
      const header = request.query.v !== undefined ? `${Object.keys(row).join(' ')}\n` : '';
      return h
        .response(`${header}${Object.values(row).join(' ')}\n`)
        .type('text/plain; charset=UTF-8')
        .header(...ELASTIC_PRODUCT);
    }),
    ...route('GET', '/api/v1/es/_license', open, (_r, h) => esJson(h, { license: LICENSE })),
    ...route('GET', '/api/v1/es/_xpack', open, (_r, h) =>
      esJson(h, {
        build: { hash: '', date: LICENSE.issue_date },
        license: { uid: LICENSE.uid, type: LICENSE.type, mode: LICENSE.type, status: LICENSE.status },
        // Index lifecycle management is "there": its policies are acknowledged (above).
        features: { ilm: { available: true, enabled: true } },
        tagline: 'You know, for X',
      }),
    ),
    ...route('GET', '/api/v1/es/_nodes/{rest*}', open, (_r, h) => esJson(h, nodes())),
    // A write is searchable (by SQL) once acknowledged: a refresh has nothing to do. The bulk
    // helper of the official client sends one after its last batch (`refreshOnCompletion`).
    ...['/api/v1/es/_refresh', '/api/v1/es/{index}/_refresh'].flatMap((path) => [
      ...route('GET', path, open, (_r, h) => esJson(h, REFRESHED)),
      ...route('POST', path, openAnyBody, (_r, h) => esJson(h, REFRESHED)),
    ]),
    ...SETUP_APIS.flatMap((api) => [
      ...route('GET', `/api/v1/es/${api.path}`, open, (_r, h) =>
        esJson(h, api.list === undefined ? {} : { [api.list]: [] }),
      ),
      ...route('*', `/api/v1/es/${api.path}/{name}`, openAnyBody, (request, h) => {
        if (request.method === 'get' || request.method === 'head')
          return esError(h, 404, ...api.missing(String(request.params.name)));
        return esJson(h, { acknowledged: true });
      }),
    ]),
    ...route('GET', '/api/v1/es/{index}', indexOptions, (request, h) => {
      const index = String(request.params.index);
      const bad = badIndex(h, index);
      if (bad !== undefined) return bad;
      const table = databaseFor(request, 'read').tables.get(index);
      if (table === undefined) throw noSuchIndex(index);
      const properties: Record<string, { type: string }> = { time: { type: 'date_nanos' } };
      for (const c of [...table.tags, ...table.fields]) properties[c.name] = { type: mappingType(c) };
      return esJson(h, {
        [index]: {
          aliases: {},
          mappings: { properties },
          settings: { index: { number_of_shards: '1', number_of_replicas: '0', provided_name: index } },
        },
      });
    }),
    ...route('PUT', '/api/v1/es/{index}', { ...indexOptions, payload: UNREAD_PAYLOAD }, (request, h) => {
      const index = String(request.params.index);
      const bad = badIndex(h, index);
      if (bad !== undefined) return bad;
      // A table is created by its first write (its columns are not known before).
      if (databaseFor(request, 'write').tables.has(index))
        return esError(h, 400, 'resource_already_exists_exception', `index [${index}] already exists`);
      return esJson(h, { acknowledged: true, shards_acknowledged: true, index });
    }),
  ];

  function health(): Record<string, unknown> {
    ctx.services(); // 503 while starting or stopping
    return {
      cluster_name: CLUSTER,
      status: 'green',
      timed_out: false,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: 0,
      active_shards: 0,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: 0,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: 100.0,
    };
  }

  function nodes(): Record<string, unknown> {
    // No node to sniff: Sundial is reached at the URL the client was given.
    return { _nodes: { total: 0, successful: 0, failed: 0 }, cluster_name: CLUSTER, nodes: {} };
  }
}
