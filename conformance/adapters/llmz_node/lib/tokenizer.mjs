// The tokenizer the bridge hands to llmz through configureTokenizer.
//
// Why not llmz's default: @bpinternal/thicktoken 1.2.1 accepts a truncation mode but ignores it, so
// tail- and middle-preserving previews would come out as head previews and disagree with the reference
// (which truncates with tiktoken cl100k_base). js-tiktoken ships the cl100k_base ranks inside the
// package, so nothing is fetched at run time.
import { Tiktoken } from 'js-tiktoken/lite'
import cl100kBase from 'js-tiktoken/ranks/cl100k_base'

const encoder = new Tiktoken(cl100kBase)

/** Token count of `text` (llmz passes an options object as the second argument; it changes nothing here). */
export function count(text) {
  if (typeof text !== 'string' || text.length === 0) return 0
  return encode(text).length
}

/**
 * Special-token spellings (`<|endoftext|>`) are ordinary text here, as in the reference's counts.
 *
 * llmz measures the same long texts (its system prompt, the tool declaration, retained history) several
 * times per request, and js-tiktoken is pure JavaScript, so encodings are memoised: a bounded map from text
 * to tokens, dropped whole when it grows past CACHE_CHARS characters of keys.
 */
const CACHE_CHARS = 8_000_000
let cache = new Map()
let cachedChars = 0

function encode(text) {
  let tokens = cache.get(text)
  if (tokens === undefined) {
    tokens = encoder.encode(text, [], [])
    if (cachedChars + text.length > CACHE_CHARS) {
      cache = new Map()
      cachedChars = 0
    }
    cache.set(text, tokens)
    cachedChars += text.length
  }
  return tokens
}

/**
 * The longest prefix (head), suffix (tail) or prefix+suffix (middle: the head gets the odd token) of
 * `text` that fits in `maxTokens` tokens. Text that already fits comes back unchanged.
 */
export function truncate(text, maxTokens, mode = 'head') {
  if (typeof text !== 'string') return ''
  const limit = Math.max(0, Math.floor(maxTokens))
  const tokens = encode(text)
  if (tokens.length <= limit) return text
  if (limit === 0) return ''
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
  count,
  truncate,
  split(text) {
    return encode(text).map((token) => encoder.decode([token]))
  },
}
