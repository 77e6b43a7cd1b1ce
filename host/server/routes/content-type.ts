// The media type of a request's Content-Type header: lower case, parameters dropped.

import type { Request } from '@hapi/hapi';

export function mediaType(request: Request): string | undefined {
  const v = request.headers['content-type'];
  if (v === undefined) return undefined;
  return String(v).split(';')[0]!.trim().toLowerCase();
}

/** The value of one media-type parameter (`proto` in `application/x-protobuf;proto=...`). */
export function mediaTypeParameter(request: Request, name: string): string | undefined {
  const v = request.headers['content-type'];
  if (v === undefined) return undefined;
  for (const part of String(v).split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim().toLowerCase() === name)
      return part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}
