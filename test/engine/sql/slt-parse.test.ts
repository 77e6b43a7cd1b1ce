// Every statement of CnosDB's conformance cases parses, or fails with the parser error CnosDB
// gives (the cases' own expectation), and prints back to SQL that parses to the same tree.

import { describe, expect, it } from 'vitest';
import { parseStatements, printStatement } from '../../../host/engine/sql/index.js';
import { stripPositions } from './ast-utils.js';
import { readSltStatements, SLT_ROOT } from './slt-statements.js';

describe.skipIf(SLT_ROOT === undefined)("CnosDB's conformance statements", () => {
  const statements = readSltStatements();

  it('are there to read', () => {
    expect(statements.length).toBeGreaterThan(500);
  });

  it('parse, or fail with the expected parser error', () => {
    const wrong: string[] = [];
    for (const s of statements) {
      try {
        const parsed = parseStatements(s.sql);
        if (s.parserError !== undefined) wrong.push(`${s.file}:${s.line} parsed, but CnosDB says: ${s.parserError}`);
        for (const p of parsed) {
          const again = parseStatements(printStatement(p));
          expect(stripPositions(again)).toEqual([stripPositions(p)]);
        }
      } catch (e) {
        const message = (e as Error).message;
        if (s.parserError === undefined && s.expect === 'ok') wrong.push(`${s.file}:${s.line} failed: ${message}`);
        else if (s.parserError !== undefined && !message.includes(s.parserError))
          wrong.push(`${s.file}:${s.line}: ${message}, CnosDB says: ${s.parserError}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
