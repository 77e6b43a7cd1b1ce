// The schema of a logical plan node: fields with an optional qualifier (the table name or alias
// they come from, `public.test` when written so), and DataFusion's name resolution over them:
// `t.c` matches qualifier and name, a bare `c` must match exactly one field. Errors carry
// DataFusion's texts ("No field named x. Valid fields are ...").

import type { DataType, Field, Schema } from '../types/index.js';
import { schemaError } from '../errors.js';

export interface PlanField {
  readonly qualifier: string | undefined;
  readonly name: string;
  readonly type: DataType;
  readonly nullable: boolean;
}

const PLAIN = /^[a-z_][a-z0-9_]*$/;

/** An identifier as DataFusion prints it in messages: quoted unless plain lower case. */
export function quoteName(name: string): string {
  return PLAIN.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** `qualifier.name` (the flat name DataFusion shows for a column). */
export function flatName(qualifier: string | undefined, name: string): string {
  return qualifier === undefined ? name : `${qualifier}.${name}`;
}

/**
 * Does a written qualifier (`t`, `db.t`) name the field's qualifier? A bare table name also
 * matches a `db.t` qualifier, as DataFusion's partial table references do.
 */
export function qualifierMatches(written: string, qualifier: string | undefined): boolean {
  if (qualifier === undefined) return false;
  if (written === qualifier) return true;
  return qualifier.endsWith('.' + written) || written.endsWith('.' + qualifier);
}

export class PlanSchema {
  readonly fields: readonly PlanField[];
  /**
   * Groups of fields that a JOIN ... USING made equal (indexes, ascending): a bare name that
   * matches only fields of one group names the first of them, as in DataFusion, and `SELECT *`
   * shows one of each group (usingColumnsToSkip).
   */
  readonly using: readonly (readonly number[])[];

  constructor(fields: readonly PlanField[], using: readonly (readonly number[])[] = []) {
    this.fields = fields;
    this.using = using;
  }

  static empty(): PlanSchema {
    return new PlanSchema([]);
  }

  get length(): number {
    return this.fields.length;
  }

  /**
   * Index of the field a reference names, or -1; throws when a bare name is ambiguous. A bare
   * name that several fields share names the one of them without a qualifier, when there is
   * exactly one (an alias beside a joined column: DataFusion 27's field_with_unqualified_name).
   */
  find(qualifier: string | undefined, name: string): number {
    let found = -1;
    let ambiguous = false;
    for (let i = 0; i < this.fields.length; i++) {
      const f = this.fields[i]!;
      if (f.name !== name) continue;
      if (qualifier !== undefined) {
        if (!qualifierMatches(qualifier, f.qualifier)) continue;
        if (qualifier === f.qualifier) return i;
      }
      if (found >= 0) {
        const other = this.fields[found]!;
        if (
          qualifier === undefined &&
          other.qualifier !== f.qualifier &&
          !this.using.some((g) => g.includes(found) && g.includes(i))
        )
          ambiguous = true;
        continue;
      }
      found = i;
    }
    if (ambiguous) {
      const bare = this.fields.flatMap((f, i) => (f.name === name && f.qualifier === undefined ? [i] : []));
      if (bare.length === 1) return bare[0]!;
      throw schemaError(`Ambiguous reference to unqualified field ${quoteName(name)}`);
    }
    return found;
  }

  /** Whether a reference names exactly one field (false when it is missing or ambiguous). */
  has(qualifier: string | undefined, name: string): boolean {
    try {
      return this.find(qualifier, name) >= 0;
    } catch {
      return false;
    }
  }

  /** Like `find`, but throws DataFusion's "No field named" error when nothing matches. */
  resolve(qualifier: string | undefined, name: string): number {
    const i = this.find(qualifier, name);
    if (i < 0) throw this.noSuchField(qualifier, name);
    return i;
  }

  noSuchField(qualifier: string | undefined, name: string): Error {
    const what = qualifier === undefined ? quoteName(name) : `${qualifier}.${quoteName(name)}`;
    if (this.fields.length === 0) return schemaError(`No field named ${what}.`);
    const valid = this.fields.map((f) => flatName(f.qualifier, quoteName(f.name))).join(', ');
    return schemaError(`No field named ${what}. Valid fields are ${valid}.`);
  }

  field(i: number): PlanField {
    return this.fields[i]!;
  }

  /** The same fields under another qualifier (SubqueryAlias). */
  requalify(qualifier: string | undefined): PlanSchema {
    return new PlanSchema(this.fields.map((f) => ({ ...f, qualifier })));
  }

  concat(other: PlanSchema): PlanSchema {
    return new PlanSchema([...this.fields, ...other.fields], this.usingBeside(other));
  }

  /** The USING groups of this schema's fields followed by `other`'s (its indexes shifted). */
  usingBeside(other: PlanSchema): number[][] {
    return [...this.using.map((g) => [...g]), ...other.using.map((g) => g.map((i) => i + this.fields.length))];
  }

  /** This schema with `pairs` of its fields made equal by USING (merged into the groups they meet). */
  withUsing(pairs: readonly (readonly [number, number])[]): PlanSchema {
    const groups = this.using.map((g) => new Set(g));
    for (const [a, b] of pairs) {
      const meeting = groups.filter((g) => g.has(a) || g.has(b));
      const merged = new Set([a, b, ...meeting.flatMap((g) => [...g])]);
      for (const g of meeting) groups.splice(groups.indexOf(g), 1);
      groups.push(merged);
    }
    return new PlanSchema(
      this.fields,
      groups.map((g) => [...g].sort((x, y) => x - y)),
    );
  }

  /**
   * The fields `SELECT *` leaves out: of each USING group all but the first by qualifier and
   * name (DataFusion sorts a group's columns and keeps the first).
   */
  usingColumnsToSkip(): Set<number> {
    const skip = new Set<number>();
    const key = (i: number): string =>
      `${this.fields[i]!.qualifier === undefined ? '0' : '1' + this.fields[i]!.qualifier}\u0000${this.fields[i]!.name}`;
    for (const g of this.using) {
      const sorted = [...g].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
      for (const i of sorted.slice(1)) skip.add(i);
    }
    return skip;
  }

  /** The execution schema (names without qualifiers). */
  toSchema(): Schema {
    return { fields: this.fields.map((f): Field => ({ name: f.name, type: f.type, nullable: f.nullable })) };
  }
}
