"""Prints a port P such that P and P + 1 are both free on 127.0.0.1, taken below the kernel's
ephemeral range (like torchrun's default 29500), where outgoing connections do not land."""
import random
import socket


def main():
    for _ in range(1000):
        port = random.randrange(20000, 32000)
        sockets = []
        try:
            for candidate in (port, port + 1):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", candidate))
            print(port)
            return
        except OSError:
            pass
        finally:
            for s in sockets:
                s.close()
    raise SystemExit("no free pair of ports in 20000..32000")


if __name__ == "__main__":
    main()
