/**
 * An error stays one line whatever a caller typed into it, and cannot
 * restyle or reorder the terminal it lands on: control and line-breaking
 * characters, and the bidirectional overrides and isolates, are shown
 * escaped (`\n`, `\u2028`, `\u202e`).
 */
export function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this escapes
  return message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const json = JSON.stringify(c).slice(1, -1);
    // JSON leaves DEL, the C1 controls, the Unicode line separators and the direction marks as they are: spell those out.
    return json === c ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : json;
  });
}
