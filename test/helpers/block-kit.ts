// Shape checks of a Slack Block Kit message, shared by the slash command's replies
// (test/chat/slack.test.ts) and the alert messages (test/alerts): the block types Slack accepts in
// messages with their required text objects, and Slack's documented limits (50 blocks; header
// plain_text ≤ 150; section text ≤ 3000; ≤ 10 fields of ≤ 2000; context ≤ 10 elements; a block_id
// ≤ 255). Returns the problems found (empty: valid).

const TEXT_TYPES = new Set(["plain_text", "mrkdwn"]);

function textProblems(where: string, text: any, limit: number, types = TEXT_TYPES): string[] {
  if (typeof text !== "object" || text === null) return [`${where}: missing text object`];
  const problems: string[] = [];
  if (!types.has(text.type)) problems.push(`${where}: text type ${text.type} not allowed`);
  if (typeof text.text !== "string" || text.text.length === 0) problems.push(`${where}: empty text`);
  else if (text.text.length > limit) problems.push(`${where}: text longer than ${limit}`);
  return problems;
}

export function blockKitProblems(message: any): string[] {
  const problems: string[] = [];
  if (typeof message?.text !== "string" || message.text.length === 0)
    problems.push("message: a fallback `text` is required");
  const blocks = message?.blocks;
  if (blocks === undefined) return problems;
  if (!Array.isArray(blocks) || blocks.length === 0) return [...problems, "blocks: expected a non-empty array"];
  if (blocks.length > 50) problems.push("blocks: more than 50");
  blocks.forEach((block: any, i: number) => {
    const where = `blocks[${i}]`;
    if (block.block_id !== undefined && (typeof block.block_id !== "string" || block.block_id.length > 255))
      problems.push(`${where}: bad block_id`);
    switch (block.type) {
      case "header":
        problems.push(...textProblems(where, block.text, 150, new Set(["plain_text"])));
        break;
      case "section":
        if (block.text === undefined && block.fields === undefined)
          problems.push(`${where}: a section needs text or fields`);
        if (block.text !== undefined) problems.push(...textProblems(where, block.text, 3000));
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields) || block.fields.length === 0 || block.fields.length > 10)
            problems.push(`${where}: 1 to 10 fields`);
          else
            for (const [j, field] of (block.fields as any[]).entries())
              problems.push(...textProblems(`${where}.fields[${j}]`, field, 2000));
        }
        break;
      case "context":
        if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10)
          problems.push(`${where}: 1 to 10 elements`);
        else
          for (const [j, element] of (block.elements as any[]).entries())
            problems.push(...textProblems(`${where}.elements[${j}]`, element, 3000));
        break;
      case "divider":
        break;
      default:
        problems.push(`${where}: block type ${block.type} not checked here`);
    }
    const known = new Set(["type", "block_id", "text", "fields", "elements", "accessory"]);
    for (const key of Object.keys(block)) if (!known.has(key)) problems.push(`${where}: unknown key ${key}`);
  });
  return problems;
}
