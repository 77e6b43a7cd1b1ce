// A JSON reply body. CONTRACT.md (and CnosDB) send `Content-Type: application/json`; hapi would
// add `; charset=utf-8` to a type set without saying otherwise.

import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

/** `text` (JSON) as the response, typed `application/json` with no charset parameter. */
export function jsonBody(h: ResponseToolkit, text: string): ResponseObject {
  const res = h.response(text).type('application/json');
  res.charset();
  return res;
}
