// Printing a conformance run: `N passed, N failed` per file and in total, and a record-level
// report (file:line, the SQL, expected vs got) that makes each failure readable on its own.

import type { FileResult, RunResult } from './runner.js';

export function fileLine(r: FileResult): string {
  const realTime = r.realTime && r.sleptMs > 0 ? ` (real time: slept ${(r.sleptMs / 1000).toFixed(1)} s)` : '';
  return `${r.file}: ${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ''}${realTime}`;
}

export function totalLine(r: RunResult): string {
  return `total: ${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ''} (${r.files.length} files)`;
}

const indent = (text: string, limit = 40): string => {
  const lines = text.split('\n');
  const shown = lines.length > limit ? [...lines.slice(0, limit), `... ${lines.length - limit} more lines`] : lines;
  return shown.map((l) => `    ${l}`).join('\n');
};

/** The whole report: the summary, then every failure. */
export function fullReport(r: RunResult): string {
  const textOnly = r.files.reduce((n, f) => n + f.failures.filter((x) => x.errorTextOnly).length, 0);
  const out: string[] = [
    ...r.files.map(fileLine),
    totalLine(r),
    `(${textOnly} of the failures got the expected error with another message)`,
    '',
  ];
  for (const f of r.files) {
    for (const failure of f.failures) {
      out.push(`FAIL ${failure.location}`);
      if (failure.sql !== '') out.push('  sql:', indent(failure.sql, 20));
      out.push('  expected:', indent(failure.expected), '  got:', indent(failure.got), '');
    }
  }
  out.push('Passed records:', ...r.files.flatMap((f) => f.passes.map((p) => `  ${p}`)), '');
  return out.join('\n');
}
