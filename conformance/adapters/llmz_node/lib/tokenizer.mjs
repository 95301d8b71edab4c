// The tokenizer the bridge hands to llmz through configureTokenizer.
//
// Why not llmz's default: @bpinternal/thicktoken 1.2.1 accepts a truncation mode but ignores it, so
// tail- and middle-preserving previews would come out as head previews and disagree with the reference
// (which truncates with tiktoken cl100k_base). js-tiktoken ships the cl100k_base ranks inside the
// package, so nothing is fetched at run time.
//
// Why the caches: llmz measures whole requests as JSON (`countNativeRequestTokens`), again for every set
// of iterations compaction considers and for every summary segment, so the same long texts, and texts
// that share most of their words, are counted over and over; js-tiktoken is pure JavaScript and does not
// remember anything. BPE works on each piece the cl100k pattern splits a text into, independently of the
// rest of the text, so the tokens of a text are the tokens of its pieces in order: pieces are encoded once
// and remembered, and whole texts keep their token counts. The results are exactly js-tiktoken's.
import { Tiktoken } from 'js-tiktoken/lite'
import cl100kBase from 'js-tiktoken/ranks/cl100k_base'

import { meteredTokenizer } from './meter.mjs'

const encoder = new Tiktoken(cl100kBase)
const PIECES = new RegExp(cl100kBase.pat_str, 'gu') // only ever used through matchAll (which copies it)
const FIRST_PIECE = new RegExp(cl100kBase.pat_str, 'uy') // sticky: the piece at lastIndex 0

/** Above this many characters of keys, a cache is dropped whole and starts again (memory stays bounded). */
const CACHE_CHARS = 8_000_000

class BoundedCache {
  constructor() {
    this.map = new Map()
    this.chars = 0
  }

  get(key) {
    return this.map.get(key)
  }

  set(key, value) {
    if (this.chars + key.length > CACHE_CHARS) {
      this.map = new Map()
      this.chars = 0
    }
    this.map.set(key, value)
    this.chars += key.length
  }
}

const pieceTokens = new BoundedCache() // piece -> its tokens, or null when it does not stand alone
const textCounts = new BoundedCache() // whole text -> token count

/**
 * The tokens of one piece of a text, encoded on its own. A piece the pattern would split differently when
 * it stands alone (its split depended on what followed it) gets null: its text is then encoded whole.
 */
function piece(text) {
  let tokens = pieceTokens.get(text)
  if (tokens === undefined) {
    FIRST_PIECE.lastIndex = 0
    const first = FIRST_PIECE.exec(text)
    const alone = first !== null && first[0] === text
    tokens = alone ? encoder.encode(text, [], []) : null
    pieceTokens.set(text, tokens)
  }
  return tokens
}

/** Special-token spellings (`<|endoftext|>`) are ordinary text here, as in the reference's counts. */
function encode(text) {
  const tokens = []
  for (const match of text.matchAll(PIECES)) {
    const own = piece(match[0])
    if (own === null) return encoder.encode(text, [], [])
    for (const token of own) tokens.push(token)
  }
  return tokens
}

/** Token count of `text` (llmz passes an options object as the second argument; it changes nothing here). */
export function count(text) {
  if (typeof text !== 'string' || text.length === 0) return 0
  let total = textCounts.get(text)
  if (total === undefined) {
    total = 0
    for (const match of text.matchAll(PIECES)) {
      const own = piece(match[0])
      if (own === null) {
        total = encoder.encode(text, [], []).length
        break
      }
      total += own.length
    }
    textCounts.set(text, total)
  }
  return total
}

/**
 * The longest prefix (head), suffix (tail) or prefix+suffix (middle: the head gets the odd token) of
 * `text` that fits in `maxTokens` tokens. Text that already fits comes back unchanged.
 */
export function truncate(text, maxTokens, mode = 'head') {
  if (typeof text !== 'string') return ''
  const limit = Math.max(0, Math.floor(maxTokens))
  if (count(text) <= limit) return text
  if (limit === 0) return ''
  const tokens = encode(text)
  if (mode === 'tail') return encoder.decode(tokens.slice(tokens.length - limit))
  if (mode === 'middle') {
    const head = Math.ceil(limit / 2)
    const tail = limit - head
    return encoder.decode(tokens.slice(0, head)) + (tail ? encoder.decode(tokens.slice(tokens.length - tail)) : '')
  }
  return encoder.decode(tokens.slice(0, limit))
}

/** The object configureTokenizer expects (thicktoken's TextTokenizer surface that llmz actually calls). */
export const tokenizer = {
  count: meteredTokenizer(count),
  truncate: meteredTokenizer(truncate),
  split: meteredTokenizer((text) => encode(text).map((token) => encoder.decode([token]))),
}
