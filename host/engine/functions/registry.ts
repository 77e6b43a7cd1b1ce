// Every function the planner can call, by lower-case name, and DataFusion's "Did you mean"
// suggestion for an unknown name. The suggestion searches DataFusion 27's own built-in names in
// its enum order (the first closest by Levenshtein distance wins), not this engine's list,
// because CnosDB's messages come from that search: 'firsts' suggests 'cbrt', 'symmetric' 'btrim'.

import { notImplemented, planError } from '../errors.js';
import { AGGREGATE_FUNCTIONS } from './aggregates.js';
import { COLLECTION_AGGREGATES } from './collection-aggregates.js';
import { PERCENTILE_AGGREGATES } from './percentile-aggregates.js';
import { STATISTICAL_AGGREGATES } from './statistical-aggregates.js';
import { GAUGE_ACCESSORS, STATE_ACCESSORS } from './time-series-accessors.js';
import { TIME_SERIES_AGGREGATES } from './time-series-aggregates.js';
import { DATA_REPAIR_AGGREGATES } from './data-repair-aggregates.js';
import type { AggregateFunction, ScalarFunction, WindowFunction } from './function-types.js';
import { ARRAY_FUNCTIONS } from './scalar-array.js';
import { CONDITIONAL_FUNCTIONS } from './scalar-conditional.js';
import { SESSION_FUNCTIONS } from './scalar-session.js';
import { MATH_FUNCTIONS } from './scalar-math.js';
import { HASH_FUNCTIONS } from './scalar-hash.js';
import { GEOMETRY_FUNCTIONS } from './scalar-geometry.js';
import { REGEX_FUNCTIONS } from './scalar-regex.js';
import { STRING_FUNCTIONS } from './scalar-string.js';
import { TIME_FUNCTIONS } from './scalar-time.js';
import { GAPFILL_MARKERS, TIME_WINDOW } from './time-window.js';
import { WINDOW_FUNCTIONS } from './window-functions.js';

export type AnyFunction = ScalarFunction | AggregateFunction | WindowFunction;

const SCALARS = new Map<string, ScalarFunction>();
for (const f of [
  ...ARRAY_FUNCTIONS,
  ...MATH_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...HASH_FUNCTIONS,
  ...REGEX_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...CONDITIONAL_FUNCTIONS,
  ...GAUGE_ACCESSORS,
  ...STATE_ACCESSORS,
  ...GAPFILL_MARKERS,
])
  SCALARS.set(f.name, f);
SCALARS.set('time_window', TIME_WINDOW);
// CnosDB's UDFs keep their mixed-case names (`ST_Area`) in errors and columns; calls match any case.
for (const f of GEOMETRY_FUNCTIONS) SCALARS.set(f.name.toLowerCase(), f);
// DataFusion's aliases: the call resolves to the canonical function, which names the result
// column (`length('x')` is `character_length(Utf8("x"))`).
const SCALAR_ALIASES: Readonly<Record<string, string>> = {
  length: 'character_length',
  char_length: 'character_length',
  pow: 'power',
  instr: 'strpos',
  substring: 'substr',
  datepart: 'date_part',
  datetrunc: 'date_trunc',
};
for (const [alias, canonical] of Object.entries(SCALAR_ALIASES)) SCALARS.set(alias, SCALARS.get(canonical)!);
for (const f of SESSION_FUNCTIONS) SCALARS.set(f.name, f);

const AGGREGATES = new Map<string, AggregateFunction>(
  [
    ...AGGREGATE_FUNCTIONS,
    ...STATISTICAL_AGGREGATES,
    ...PERCENTILE_AGGREGATES,
    ...COLLECTION_AGGREGATES,
    ...TIME_SERIES_AGGREGATES,
    ...DATA_REPAIR_AGGREGATES,
  ].map((f) => [f.name, f]),
);
const WINDOWS = new Map<string, WindowFunction>(WINDOW_FUNCTIONS.map((f) => [f.name, f]));

export function scalarFunction(name: string): ScalarFunction | undefined {
  return SCALARS.get(name);
}

export function aggregateFunction(name: string): AggregateFunction | undefined {
  return AGGREGATES.get(name);
}

export function windowFunction(name: string): WindowFunction | undefined {
  return WINDOWS.get(name);
}

/**
 * The names DataFusion suggests from, in its order: the scalar functions (lower case), then the
 * aggregate functions as CnosDB's DataFusion displays them (upper case: "Did you mean 'MAX'?").
 */
const DATAFUSION_NAMES = [
  ...(
    'abs acos asin atan atan2 acosh asinh atanh cbrt ceil cos cosh degrees exp factorial floor gcd lcm ln log log10 ' +
    'log2 pi power radians round signum sin sinh sqrt tan tanh trunc coalesce array_append array_concat array_dims ' +
    'array_fill array_has array_has_all array_has_any array_length array_ndims array_position array_positions ' +
    'array_prepend array_remove array_replace array_to_string cardinality make_array trim_array ascii bit_length btrim ' +
    'character_length chr concat concat_ws date_part date_trunc date_bin initcap left lpad lower ltrim md5 nullif ' +
    'octet_length random regexp_replace repeat replace reverse right rpad rtrim sha224 sha256 sha384 sha512 digest ' +
    'split_part starts_with strpos substr to_hex to_timestamp to_timestamp_millis to_timestamp_micros ' +
    'to_timestamp_seconds from_unixtime now current_date current_time uuid struct arrow_typeof regexp_match translate ' +
    'trim upper'
  ).split(' '),
  ...(
    'COUNT SUM MIN MAX AVG MEDIAN APPROX_DISTINCT ARRAY_AGG FIRST_VALUE LAST_VALUE VAR VAR_POP STDDEV STDDEV_POP COVAR ' +
    'COVAR_POP CORR APPROX_PERCENTILE_CONT APPROX_PERCENTILE_CONT_WITH_WEIGHT APPROX_MEDIAN GROUPING BIT_AND BIT_OR ' +
    'BIT_XOR BOOL_AND BOOL_OR REGR_SLOPE REGR_INTERCEPT REGR_COUNT REGR_R2 REGR_AVGX REGR_AVGY REGR_SXX REGR_SYY REGR_SXY'
  ).split(' '),
];

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** "Invalid function 'x'.\nDid you mean 'y'?" */
export function unknownFunction(name: string): Error {
  let best = DATAFUSION_NAMES[0]!;
  let bestDistance = Infinity;
  const target = name.toLowerCase();
  for (const c of DATAFUSION_NAMES) {
    const d = levenshtein(c.toLowerCase(), target);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  // A DataFusion 27 function this engine lacks: not a typo to correct.
  if (bestDistance === 0) return notImplemented(`function ${name}`);
  return planError(`Invalid function '${name}'.\nDid you mean '${best}'?`);
}
