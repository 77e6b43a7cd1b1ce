// The names a new tenant, user, role, database or (SQL) table may take, beyond CnosDB's own checks
// (not empty or blank, no '/'): no leading or trailing whitespace, no control characters, and not
// '.' or '..'. A user renamed itself to "root " (issue 24), which reads as root in every listing
// and log line; a name with a newline or an escape sequence forges log lines and terminal output;
// '.' and '..' read as paths. Checked where names are made (CREATE, RENAME), never where a stored
// catalog is loaded, so a catalog that holds such a name still opens.

/** Unicode white space, as String.prototype.trim removes it. */
/**
 * The database name a privilege check takes for "every database of the tenant" (CnosDB's
 * `Database(p, None)`; QuerySession.authorize, meta/access.ts): no database has it (names
 * exclude `*`).
 */
export const ALL_DATABASES = '*';

const EDGE_SPACE = /^\s|\s$/u;
/** C0 controls, DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it finds control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** What is wrong with `name` as the name of a new object, or undefined when nothing is. */
export function objectNameProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return `Name cannot be '.' or '..'`;
  if (CONTROL.test(name)) return `Name cannot contain control characters: ${JSON.stringify(name)}`;
  if (EDGE_SPACE.test(name)) return `Name cannot begin or end with white space: ${JSON.stringify(name)}`;
  return undefined;
}
