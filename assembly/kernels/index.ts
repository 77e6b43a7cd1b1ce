// Column kernel exports (see assembly/README.md, section Kernels).
export { k_region } from './region';
export { k_cmp_i64 } from './compare';
export { k_arith_i64 } from './arithmetic';
export { k_bucket_runs, k_fold_groups, k_finish_groups } from './bucket-fold';
export { k_format_f64 } from './float-text';
