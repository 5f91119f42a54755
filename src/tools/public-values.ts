/**
 * The runtime values of the public `goondan` package (src/index.ts adds only types): what a bundle's tool,
 * extension or connector file gets from `import { pending, ToolFault } from "goondan"`. The module resolver serves
 * exactly these, so the public surface and what runs in a child cannot drift apart.
 */
export { isPendingHandle, pending } from "./pending.ts";
export { ToolFault } from "./tool-errors.ts";
export { buildToolName, parseToolName } from "./naming.ts";
