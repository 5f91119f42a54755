/**
 * Which IP addresses http-fetch refuses by default: loopback, private (RFC 1918), CGNAT, link-local
 * (including cloud metadata 169.254.169.254), "this network", multicast, reserved and documentation
 * ranges, and for IPv6 loopback, unspecified, unique-local (fc00::/7, which holds AWS's fd00:ec2::254),
 * link-local, multicast, plus IPv4 addresses embedded in mapped/NAT64/6to4 forms.
 */
import { isIP } from "node:net";

type Range4 = [base: number, prefix: number, reason: string];

const IPV4_BLOCKED: Range4[] = [
  [ipv4ToNumber("0.0.0.0"), 8, "'this network'"],
  [ipv4ToNumber("10.0.0.0"), 8, "private"],
  [ipv4ToNumber("100.64.0.0"), 10, "carrier-grade NAT"],
  [ipv4ToNumber("127.0.0.0"), 8, "loopback"],
  [ipv4ToNumber("169.254.0.0"), 16, "link-local / cloud metadata"],
  [ipv4ToNumber("172.16.0.0"), 12, "private"],
  [ipv4ToNumber("192.0.0.0"), 24, "IETF protocol assignments"],
  [ipv4ToNumber("192.0.2.0"), 24, "documentation"],
  [ipv4ToNumber("192.88.99.0"), 24, "6to4 relay"],
  [ipv4ToNumber("192.168.0.0"), 16, "private"],
  [ipv4ToNumber("198.18.0.0"), 15, "benchmarking"],
  [ipv4ToNumber("198.51.100.0"), 24, "documentation"],
  [ipv4ToNumber("203.0.113.0"), 24, "documentation"],
  [ipv4ToNumber("224.0.0.0"), 4, "multicast"],
  [ipv4ToNumber("240.0.0.0"), 4, "reserved"],
];

function ipv4ToNumber(address: string): number {
  const parts = address.split(".").map(Number);
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
}

function blockedIpv4(address: string): string | null {
  const value = ipv4ToNumber(address);
  for (const [base, prefix, reason] of IPV4_BLOCKED) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((value & mask) >>> 0 === (base & mask) >>> 0) return reason;
  }
  return null;
}

/** Eight 16-bit groups of an IPv6 address (handles `::` and a dotted IPv4 tail); null when malformed. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    if (isIP(text.slice(lastColon + 1)) !== 4) return null;
    const v4 = ipv4ToNumber(text.slice(lastColon + 1));
    tail = [v4 >>> 16, v4 & 0xffff];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length - tail.length;
  if (halves.length === 1 && missing !== 0) return null;
  if (missing < 0) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest, ...tail];
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff))
    return null;
  return groups;
}

function blockedIpv6(address: string): string | null {
  const groups = ipv6Groups(address);
  if (groups === null) return "malformed IPv6 address";
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embedded = (high: number, low: number): string => `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`;
  if (groups.every((group) => group === 0)) return "unspecified";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) {
    return blockedIpv4(embedded(g6, g7)) ?? (g5 === 0 ? "IPv4-compatible" : null);
  }
  // NAT64 64:ff9b::/96
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return blockedIpv4(embedded(g6, g7));
  // 6to4 2002::/16 embeds an IPv4 address in groups 1-2
  if (g0 === 0x2002) return blockedIpv4(embedded(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local (includes cloud metadata fd00:ec2::254)";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only";
  return null;
}

/** Why `address` (an IP literal) is refused, or null when it is a public address. */
export function blockedAddressReason(address: string): string | null {
  const version = isIP(address);
  if (version === 4) return blockedIpv4(address);
  if (version === 6) return blockedIpv6(address);
  return "not an IP address";
}
