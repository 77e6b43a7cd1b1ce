// SQL over HTTP for the end-to-end feature tests: a statement's CSV answer (which must be a 200),
// or the error it must fail with.

import { expect } from 'vitest';
import { http } from './http.js';

export interface SqlChecks {
  /** The CSV body of `sql` run in `db`; the status must be 200. */
  csv(sql: string, db?: string): Promise<string>;
  /** `sql` must fail with `status` and an error_message matching `message`. */
  fails(sql: string, status: number, message: RegExp, db?: string): Promise<void>;
}

/** Checks against the server whose base URL `url()` gives (read at each call: servers start in beforeAll). */
export function sqlChecks(url: () => string): SqlChecks {
  return {
    async csv(sql, db = 'public') {
      const r = await http(url(), `/api/v1/sql?db=${db}`, { method: 'POST', body: sql });
      expect(r.status, `${sql}: ${r.text}`).toBe(200);
      return r.text;
    },
    async fails(sql, status, message, db = 'public') {
      const r = await http(url(), `/api/v1/sql?db=${db}`, { method: 'POST', body: sql });
      expect(r.status, r.text).toBe(status);
      expect((JSON.parse(r.text) as { error_message: string }).error_message).toMatch(message);
    },
  };
}
