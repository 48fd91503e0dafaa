"""Lists, extracts or replaces the PTX of a kernel package's artifacts (docs/package-format.md,
version 4), to time hand-edited machine code through the runtime as it launches the compiler's:
    package_ptx.py PKG                      list the artifacts (index, target, chip, variant, threads,
                                            shared memory, bytes)
    package_ptx.py PKG get I OUT.ptx        write artifact I's PTX
    package_ptx.py PKG put I IN.ptx OUT     write a copy of PKG with artifact I's PTX replaced
The checksum is recomputed; nothing else changes."""
import struct
import sys


class Reader:
    def __init__(self, data, at):
        self.data, self.at = data, at

    def u(self, n):
        v = int.from_bytes(self.data[self.at:self.at + n], "little")
        self.at += n
        return v

    def blob(self):
        n = self.u(8)
        start = self.at
        self.at += n
        return start, n


def artifacts(data):
    if data[:8] != b"TSPKG\0\0\0":
        sys.exit("not a Tessera kernel package")
    version = int.from_bytes(data[8:12], "little")
    r = Reader(data, 32)
    found = []
    for _ in range(r.u(4)):
        r.blob()  # name
        for _ in range(r.u(4)):
            r.blob(); r.u(1); r.u(1); r.u(4)
        r.u(4)  # numWarps
        r.blob()  # tile IR
        for _ in range(r.u(4)):
            target = r.u(1)
            cs, cn = r.blob()
            chip = data[cs:cs + cn].decode()
            r.u(4); r.u(4)
            r.blob()  # entry point
            block = [r.u(4) for _ in range(3)]
            shared = r.u(4)
            r.u(4)
            code = r.blob()
            maps = r.u(4)
            for _ in range(maps):
                r.u(4)
                for _ in range(3):
                    r.u(4); r.u(8)
                r.u(4); r.u(4); r.u(4); r.u(4)
            divisible = r.u(4) if version >= 3 else 0
            for _ in range(divisible):
                r.u(4)
                if version >= 4:
                    r.u(4)
            found.append({"target": "ptx" if target == 1 else "spirv", "chip": chip, "code": code, "maps": maps,
                          "divisible": divisible, "threads": block[0] * block[1] * block[2], "shared": shared})
    return found


def fnv1a64(payload):
    h = 0xcbf29ce484222325
    for b in payload:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    data = open(sys.argv[1], "rb").read()
    arts = artifacts(data)
    if len(sys.argv) == 2:
        for i, a in enumerate(arts):
            print(i, a["target"], a["chip"], f"maps={a['maps']}", f"divisible={a['divisible']}",
                  f"threads={a['threads']}", f"shared={a['shared']}", f"{a['code'][1]} bytes")
        return
    i = int(sys.argv[3])
    start, n = arts[i]["code"]
    if sys.argv[2] == "get":
        open(sys.argv[4], "wb").write(data[start:start + n])
    elif sys.argv[2] == "put":
        new = open(sys.argv[4], "rb").read()
        body = bytearray(data[:start - 8]) + struct.pack("<Q", len(new)) + new + data[start + n:]
        body[16:24] = struct.pack("<Q", len(body) - 32)
        body[24:32] = struct.pack("<Q", fnv1a64(bytes(body[32:])))
        open(sys.argv[5], "wb").write(bytes(body))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
