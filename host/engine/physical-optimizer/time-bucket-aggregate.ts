// GROUP BY tags and one date_bin over a table scan runs on the storage chunks directly
// (TimeBucketAggregateExec: buckets are runs of sorted time, whole blocks folded from their
// statistics) instead of a hash aggregate over scanned rows. Which aggregates and group keys
// qualify is exec/time-bucket-aggregate-exec.ts's timeBucketAggregate.

import { timeBucketAggregate } from '../exec/time-bucket-aggregate-exec.js';
import { UNCHANGED, type PhysicalRule } from './physical-rule.js';

export const timeBucketAggregation: PhysicalRule = {
  name: 'time_bucket_aggregate',
  rewrite(plan) {
    if (plan.kind !== 'aggregate' || plan.groupingSets !== undefined) return UNCHANGED;
    const exec = timeBucketAggregate(plan);
    return exec === undefined ? UNCHANGED : { changed: true, plan: exec };
  },
};
