// GEOMETRY columns on the real server: line protocol into a geometry field is checked against
// the column's sub type like INSERT (a bad line stores nothing of the request, 422 010073 with
// CnosDB's text in the error headers), and the declaration survives a restart (catalog.json).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

async function sql(text: string): Promise<string> {
  const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: text });
  expect(r.status, `${text}: ${r.text}`).toBe(200);
  return r.text;
}

describe('GEOMETRY columns', () => {
  beforeAll(async () => {
    server = await startServer({ inProcess: true });
    await sql('CREATE TABLE places (loc GEOMETRY(POINT, 0), note STRING, TAGS(site))');
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('stores line-protocol WKT of the column sub type', async () => {
    const r = await writeLp(server.url, 'places,site=a loc="POINT(1 2)",note="x" 1\nplaces,site=b note="no loc" 2');
    expect(r.status, r.text).toBe(200);
    expect(await sql('SELECT site, loc, ST_AsBinary(loc) FROM places ORDER BY time')).toBe(
      'site,loc,st_AsBinary(places.loc)\na,POINT(1 2),0101000000000000000000f03f0000000000000040\nb,,\n',
    );
  });

  it('refuses a whole request with one value of another sub type', async () => {
    const r = await writeLp(server.url, 'places,site=c loc="POINT(3 3)" 3\nplaces,site=c loc="LINESTRING(0 0, 1 1)" 4');
    expect(r.status).toBe(422);
    expect(r.text).toBe('');
    expect(r.headers['x-sundial-error-code']).toBe('010073');
    expect(r.headers['x-sundial-error']).toBe(
      'Invalid geometry type, error: expect Point, got LineString(LineString([Coord { x: 0.0, y: 0.0 }, Coord { x: 1.0, y: 1.0 }]))',
    );
    expect(await sql("SELECT count(*) FROM places WHERE site = 'c'")).toBe('COUNT(UInt8(1))\n0\n');
  });

  it('refuses text that is not WKT, quoting it as CnosDB does', async () => {
    const r = await writeLp(server.url, 'places,site=d loc="here \\"1\\"" 5');
    expect(r.status).toBe(422);
    expect(r.headers['x-sundial-error']).toBe(
      'Invalid geometry type, error: processing geometry `Invalid type encountered`, expect Point, got "here \\"1\\""',
    );
  });

  it('keeps the declaration across a restart', async () => {
    expect(await server.stop()).toBe(0);
    server = await startServer({ inProcess: true, dataDir: server.dataDir });
    expect(
      await sql(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'places' ORDER BY column_name",
      ),
    ).toBe('column_name,data_type\nloc,"Geometry(POINT, 0)"\nnote,STRING\nsite,STRING\ntime,TIMESTAMP(NANOSECOND)\n');
    expect((await writeLp(server.url, 'places,site=e loc="POLYGON((0 0, 1 0, 0 1, 0 0))" 6')).status).toBe(422);
  });
});
