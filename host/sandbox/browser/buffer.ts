// node:buffer for the sandbox bundle (bin/build-sandbox.js aliases it): only isUtf8, which the
// STRING block decoder checks dictionaries with.

const strict = new TextDecoder('utf-8', { fatal: true });

export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
