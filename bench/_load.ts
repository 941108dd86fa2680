import { runLoad } from './load.ts';
import { commandLineScenario } from './scenarios.ts';
const [url, target, seconds = '3'] = process.argv.slice(2);
const m = await runLoad(url!, commandLineScenario(target!, 'svc', 'x'), { seconds: Number(seconds), connections: 32 });
console.log(`${Math.round(m.rps)} req/s, ${m.requests} requests`);
