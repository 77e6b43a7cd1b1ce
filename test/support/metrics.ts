// Reads a server's GET /metrics into its samples, keyed by the series exactly as the text format
// prints it (`name{label="value",...}`, labels in the order the server declares them).

import { expect } from 'vitest';
import { http, type HttpOptions } from './http.js';

export type Samples = Map<string, number>;

/** Parses Prometheus' text exposition format 0.0.4: comments skipped, one sample a line. */
export function parseSamples(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Scrapes `/metrics` (200 expected) without credentials unless `options` gives some. */
export async function scrape(url: string, options: HttpOptions = { auth: null }): Promise<Samples> {
  const r = await http(url, '/metrics', options);
  expect(r.status, r.text).toBe(200);
  return parseSamples(r.text);
}

/** How much each of `series` moved between two scrapes (a series absent counts as 0). */
export function moved(before: Samples, after: Samples, series: readonly string[]): Record<string, number> {
  return Object.fromEntries(series.map((s) => [s, (after.get(s) ?? 0) - (before.get(s) ?? 0)]));
}

/**
 * Scrapes until `ready` holds of the samples (a request is counted once its answer has gone out,
 * which the client may see a moment before the server's own 'finish').
 */
export async function scrapeUntil(url: string, ready: (s: Samples) => boolean): Promise<Samples> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await scrape(url);
    if (ready(s) || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}
