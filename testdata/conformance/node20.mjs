// The conformance suite 0.1.16 imports fs.globSync, which Node 22 added,
// for its tier-check command alone (which toolroute's tests do not run);
// the import fails on Node 20, which toolroute supports, before any
// command runs. On a Node without it, node20-hooks.mjs gives the suite an
// fs whose globSync says so. Run the suite with node --import ./node20.mjs.
import * as fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./node20-hooks.mjs', import.meta.url);
