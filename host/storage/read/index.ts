// The read path over a consistent view of a database: series lists kept between queries, series
// found through the postings of v4 files, pieces
// merged newest-wins with tombstones applied, and the per-series last-point cache.

export { LastPointCache } from './last-points.js';
export { lastValues, listSeries, scanTable, scanTableStats, tableRuns } from './read-path.js';
export { bounds, type Bounds, type ReadView, type SeriesInfo } from './read-view.js';
export { SeriesListCache, seriesWithTags } from './series-list.js';
export { seriesByPostings } from './series-postings.js';
export { applicable, applyTombstones, mergeRows, tableTombstones, type TableTombstones } from './series-merge.js';
