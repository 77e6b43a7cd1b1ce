import { writeFileSync } from 'node:fs';
import { otlpWorkload } from './ingest-bodies.js';
const w = otlpWorkload(50000);
writeFileSync('/tmp/ingest-otlp.json', JSON.stringify(w.bodies.map((b) => b.toString('base64'))));
