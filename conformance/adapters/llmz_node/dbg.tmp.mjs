import fs from 'node:fs'
import { playScenario } from './lib/play.mjs'
import { ScriptedModelClient } from './lib/model-client.mjs'
const payload = JSON.parse(fs.readFileSync('/tmp/pinb_payload.json', 'utf8'))
const orig = ScriptedModelClient.prototype.generateText
try { const r = await playScenario(payload); console.log(JSON.stringify(r.events.filter(e => e.type !== 'model_request').slice(0, 12), null, 1).slice(0, 3000)) } catch (e) { console.log('ERR', e.message) }
