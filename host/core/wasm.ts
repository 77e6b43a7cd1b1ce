// Loads the Sundial Wasm core (assembly/, ABI in assembly/README.md) in any runtime: the caller
// supplies the compiled module or its bytes (Node reads build/sundial.wasm, a browser fetches it).
// Views over Wasm memory go stale when memory grows; always take them through `bytes()` etc.
// after the last call that may allocate.

/** The raw exports; pointers and lengths are byte offsets and counts (i64 crosses as bigint). */
export interface CoreExports {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  [name: string]: unknown;
}

export class Core {
  readonly exports: CoreExports;
  /** The compiled module, for instances on other threads (the compaction thread's). */
  readonly module: WebAssembly.Module;
  #u8: Uint8Array;

  private constructor(module: WebAssembly.Module, instance: WebAssembly.Instance) {
    this.module = module;
    this.exports = instance.exports as unknown as CoreExports;
    this.#u8 = new Uint8Array(this.exports.memory.buffer);
  }

  /** Instantiates the core from a compiled module or the bytes of build/sundial.wasm. */
  static async load(source: WebAssembly.Module | BufferSource): Promise<Core> {
    let memory: WebAssembly.Memory | undefined;
    const imports = {
      env: {
        // AssemblyScript calls abort(message, file, line, column) on a failed assertion; it is
        // always a bug in the core, never a property of the input.
        abort(msgPtr: number, filePtr: number, line: number, column: number): never {
          const text = (p: number): string => (memory ? readAsString(memory, p) : '?');
          throw new Error(`BUG: wasm abort: ${text(msgPtr)} at ${text(filePtr)}:${line}:${column}`);
        },
      },
    };
    const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
    const instance = await WebAssembly.instantiate(module, imports);
    memory = (instance.exports as unknown as CoreExports).memory;
    return new Core(module, instance);
  }

  /** A byte view over the whole memory, renewed if memory has grown since the last call. */
  bytes(): Uint8Array {
    if (this.#u8.buffer !== this.exports.memory.buffer) this.#u8 = new Uint8Array(this.exports.memory.buffer);
    return this.#u8;
  }

  /** A fresh DataView over the whole memory. */
  view(): DataView {
    return new DataView(this.exports.memory.buffer);
  }

  /** Copies `src` into Wasm memory at `ptr` (allocated by the caller with at least src.length bytes). */
  write(ptr: number, src: Uint8Array): void {
    this.bytes().set(src, ptr);
  }
}

/** Reads an AssemblyScript managed string (UTF-16, byte length at ptr - 4). */
function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return 'null';
  const dv = new DataView(memory.buffer);
  const len = dv.getUint32(ptr - 4, true);
  return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, len >>> 1));
}
