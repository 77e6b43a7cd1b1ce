// Column kernel exports (see assembly/README.md, section Kernels).
export { k_region } from './region';
export { k_cmp_i64 } from './compare';
export { k_arith_i64 } from './arithmetic';
