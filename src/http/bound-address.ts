/**
 * What the address the API binds to means for who may reach it: loopback (127.0.0.0/8, ::1, `localhost`) is this
 * machine only; a wildcard (`0.0.0.0`, `::`) is every interface; anything else is a network address. Also reads a
 * Host header's name the way a browser wrote it, so the host check compares like with like.
 */
import { BlockList, isIP } from "node:net";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** A host name or IP literal without brackets, lower-cased. */
function bare(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/** Whether `host` (a name or IP literal, bracketed or not) is this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = bare(host);
  if (name === "localhost") return true;
  const version = isIP(name);
  return version !== 0 && loopback.check(name, version === 4 ? "ipv4" : "ipv6");
}

/** Whether binding `host` listens on every interface. */
export function isWildcardHost(host: string): boolean {
  const name = bare(host);
  return name === "0.0.0.0" || (isIP(name) === 6 && name.replaceAll(/[:0]/g, "") === "");
}

export function isIpLiteral(host: string): boolean {
  return isIP(bare(host)) !== 0;
}

const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?$/;

/**
 * The host name of a Host header (`Example.COM:8790` → `example.com`, `[::1]:80` → `::1`, `2130706433` →
 * `127.0.0.1`, as a browser normalizes a URL's host), or undefined when the header is not a host and port.
 */
export function hostnameOf(header: string): string | undefined {
  if (!HOST_HEADER.test(header)) return undefined;
  try {
    return bare(new URL(`http://${header}`).hostname);
  } catch {
    return undefined;
  }
}
