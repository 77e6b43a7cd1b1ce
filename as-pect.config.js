// as-pect: compiles every assembly/__tests__/*.spec.ts against the core and runs it.
export default {
  entries: ['assembly/__tests__/**/*.spec.ts'],
  include: ['assembly/__tests__/**/*.include.ts'],
  disclude: [/node_modules/],
  async instantiate(memory, createImports, instantiate, binary) {
    return instantiate(binary, createImports({ env: { memory } }));
  },
  outputBinary: false,
};
