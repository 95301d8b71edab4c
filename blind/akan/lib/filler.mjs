// Generated text for `filler_chars` and `{filler:N}`: the first N characters of "lorem ipsum " repeated.
export const filler = (n) => "lorem ipsum ".repeat(Math.ceil(n / 12) + 1).slice(0, n);
export const expandFiller = (s) => (s == null ? s : s.replace(/\{filler:(\d+)\}/g, (_, n) => filler(Number(n))));
