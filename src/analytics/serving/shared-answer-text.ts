// JSON text of shared answers. A precomputed public answer, or one in a version's answer cache, is
// one object handed to every request that asks the same question; answers are never mutated
// after they are built (the query layer's contract), so its JSON can be produced once. For large
// answers (release-diff, top-issues: 20-30 KB, hundreds of doubles) JSON.stringify is most of a
// request's cost. A precomputed answer registers the very text the tables job stored.
//
// The HTTP layer uses answerJson(body) where it would call JSON.stringify(body); any other object
// (an error body, an unshared answer) is serialized as before.

/** Shared answers: their JSON text, or null until first asked for. */
const texts = new WeakMap<object, string | null>();

/** Marks an answer as shared and immutable; `text` is its JSON when already known. Returns the answer. */
export function shareAnswer<T>(answer: T, text: string | null = null): T {
  if (typeof answer === "object" && answer !== null && !texts.has(answer)) texts.set(answer, text);
  return answer;
}

/** JSON.stringify(body), produced once per shared answer. */
export function answerJson(body: unknown): string {
  if (typeof body !== "object" || body === null) return JSON.stringify(body);
  const known = texts.get(body);
  if (known === undefined) return JSON.stringify(body);
  if (known !== null) return known;
  const text = JSON.stringify(body);
  texts.set(body, text);
  return text;
}
