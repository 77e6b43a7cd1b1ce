// The client state of one .slt file (CnosDB keeps it per file): who connects, to which tenant and
// database, with which write precision, chunked or not, and the request timeout. Instruction lines
// change it as CnosDB's SqlClientOptions::parse_and_change does (query_server/sqllogicaltests/
// src/instance.rs): DATABASE, USER_NAME and PRECISION take the leading identifier of the value
// (`--#DATABASE = database0;` is `database0`), CHUNKED only `true` or `false` (Rust's bool
// parser), TIMEOUT a humantime duration. HTTP_HOST/PORT and FLIGHT_HOST/PORT are ignored: every
// request goes to the server under test.

import type { Instruction } from './slt-request.js';
import { parseDurationMs } from './slt-parser.js';

export interface ClientState {
  user: string;
  password: string;
  tenant: string;
  database: string;
  /** Sent as `precision` on write requests; CnosDB's default is NS. */
  precision: string;
  chunked: boolean | undefined;
  timeoutMs: number;
}

export function initialState(timeoutMs: number): ClientState {
  return {
    user: 'root',
    password: '',
    tenant: 'cnosdb',
    database: 'public',
    precision: 'NS',
    chunked: undefined,
    timeoutMs,
  };
}

const IDENTITY = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Applies one instruction; returns false for a name or value CnosDB would ignore. */
export function applyInstruction(state: ClientState, ins: Instruction): boolean {
  const value = ins.value;
  if (value === undefined) return false;
  const identity = IDENTITY.exec(value)?.[0];
  switch (ins.name) {
    case 'DATABASE':
      if (identity === undefined) return false;
      state.database = identity;
      return true;
    case 'USER_NAME':
      if (identity === undefined) return false;
      state.user = identity;
      return true;
    case 'PRECISION':
      if (identity === undefined) return false;
      state.precision = identity;
      return true;
    case 'TENANT':
      state.tenant = value;
      return true;
    case 'PASSWORD':
      state.password = value;
      return true;
    case 'CHUNKED':
      if (value !== 'true' && value !== 'false') return false;
      state.chunked = value === 'true';
      return true;
    case 'TIMEOUT': {
      const ms = parseDurationMs(value);
      if (ms === undefined) return false;
      state.timeoutMs = ms;
      return true;
    }
    default:
      return false;
  }
}
