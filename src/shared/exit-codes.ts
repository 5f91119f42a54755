/** The process exit codes of every goondan command (SPEC §5): 0 ok, 1 failure, 2 usage, 3 config invalid, 130 interrupted. */
export const EXIT = { ok: 0, failure: 1, usage: 2, configInvalid: 3, interrupted: 130 } as const;
