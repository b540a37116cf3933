// npm run bench [-- scenario ...]: runs the named scenarios (all when none) and prints measured figures.
import { abuseScenario } from './scenarios/abuse.js';
import { adapterScenario } from './scenarios/adapter.js';
import { assetScenario } from './scenarios/asset.js';
import { backendsScenario } from './scenarios/backends.js';
import { clusterFollowScenario } from './scenarios/cluster-follow.js';
import { clusterFollowPgScenario } from './scenarios/cluster-follow-pg.js';
import { compressionScenario } from './scenarios/compression.js';
import { dasScenario } from './scenarios/das.js';
import { firstStartScenario } from './scenarios/first-start.js';
import { fleetScenario } from './scenarios/fleet.js';
import { foresterScenario } from './scenarios/forester.js';
import { foresterSustainedScenario } from './scenarios/forester-sustained.js';
import { proverScenario } from './scenarios/prover.js';
import { pubsubScenario } from './scenarios/pubsub.js';
import { simulateScenario } from './scenarios/simulate.js';
import { soakScenario } from './scenarios/soak.js';
import { stallsScenario } from './scenarios/stalls.js';
import { vsLightScenario } from './scenarios/vs-light.js';
import { zkScenario } from './scenarios/zk.js';

interface Scenario {
  name: string;
  describe: string;
  /** Runs only when named (the hour-long soak, the sustained forester load). */
  explicitOnly?: boolean;
  run(): Promise<void>;
}

const SCENARIOS: Scenario[] = [
  adapterScenario,
  zkScenario,
  proverScenario,
  backendsScenario,
  simulateScenario,
  assetScenario,
  dasScenario,
  compressionScenario,
  clusterFollowScenario,
  clusterFollowPgScenario,
  foresterScenario,
  foresterSustainedScenario,
  pubsubScenario,
  stallsScenario,
  vsLightScenario,
  soakScenario,
  abuseScenario,
  fleetScenario,
  firstStartScenario,
];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !SCENARIOS.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
for (const s of SCENARIOS.filter((s) => (wanted.length === 0 && !s.explicitOnly) || wanted.includes(s.name))) {
  console.log(`\n== ${s.name}: ${s.describe}`);
  await s.run();
}
