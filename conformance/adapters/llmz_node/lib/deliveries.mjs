// Every send a program makes, recorded whether or not a handler ever sees it.
//
// llmz 1.0.1 queues each `chat.<component>(props)` call: the method renders the props at once and chains
// the delivery behind the earlier ones, so a failing handler rejects the chain and every later send of
// that program never reaches its handler (ERRORS.md: later queued sends are skipped). A host that records
// deliveries only inside its handlers can never show that skip. So the bridge records the send when the
// component renders it (queued), its handler settles it (`delivered` / `failed`), llmz's own failed
// `message_delivery` trace settles one that had no handler to reach (`unhandled`), and whatever is still
// queued when the iteration ends was skipped.

export class DeliveryQueue {
  /** @param {import('./recorder.mjs').Recorder} recorder */
  constructor(recorder) {
    this.recorder = recorder
    this.waiting = []
  }

  /** A program's `chat.<component>(props)` call rendered these props: the send is queued. */
  queued(iteration, component, content, hasHandler) {
    this.waiting.push({ iteration, component, content, hasHandler })
  }

  /** The handler of `component` was handed its oldest queued send: that send is no longer waiting. */
  reached(component) {
    const index = this.waiting.findIndex((entry) => entry.component === component)
    if (index >= 0) this.waiting.splice(index, 1)
  }

  /** llmz traced a failed delivery; a send no handler was handed failed for want of one. */
  traced(trace) {
    if (trace?.type !== 'message_delivery' || trace.success !== false) return
    const component = trace.value?.name
    const index = this.waiting.findIndex((entry) => entry.component === component && !entry.hasHandler)
    if (index < 0) return
    const [entry] = this.waiting.splice(index, 1)
    this.#emit(entry, 'unhandled')
  }

  /** The iteration ended: its sends still queued never reached a handler. */
  skipRemaining(iteration) {
    const left = this.waiting.filter((entry) => entry.iteration === iteration)
    this.waiting = this.waiting.filter((entry) => entry.iteration !== iteration)
    for (const entry of left) this.#emit(entry, 'skipped')
  }

  #emit(entry, status) {
    this.recorder.emit('delivery', {
      iteration: entry.iteration, kind: 'component', component: entry.component, content: entry.content, status,
    })
  }
}
