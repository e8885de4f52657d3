import { TARGETS } from './support/targets.js';
import { conformanceSuite } from './conformance.js';

await conformanceSuite(TARGETS.find((t) => t.id === 'mariadb')!);
