/** `goondan schema`: prints the JSON Schema of a goondan.yaml document (for yaml-language-server). */
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { documentSchema } from "../../config/document-schema.ts";

export const command: CliCommand = {
  name: "schema",
  summary: "Print the JSON Schema of one goondan.yaml document (all kinds), for editors such as yaml-language-server.",
  usage: "goondan schema",
  flags: {},
  maxPositionals: 0,
  async run({ io }) {
    io.stdout(`${JSON.stringify(documentSchema(), null, 2)}\n`);
    return EXIT.ok;
  },
};
