"""Certificates for the wss:// relay's tests, written to the folder given: a throwaway CA (ca.pem), a
server certificate it signs for localhost and 127.0.0.1 (server.pem, server-key.pem), and one it signs
for another name only (other.pem, other-key.pem). With the `cryptography` package when python3 can import
it, otherwise with the `openssl` command; prints which, or exits 3 saying neither is there.
"""
import datetime
import os
import shutil
import subprocess
import sys

out = sys.argv[1]


def path(name):
    return os.path.join(out, name)


def with_cryptography():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(common):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def write_key(key, file):
        with open(path(file), "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))

    def write_cert(cert, file):
        with open(path(file), "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name("StubKit test CA")).issuer_name(name("StubKit test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    write_cert(ca, "ca.pem")

    def leaf(file, common, names):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name(common)).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                .add_extension(x509.SubjectAlternativeName(names), critical=False)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
                .sign(ca_key, hashes.SHA256()))
        write_cert(cert, file + ".pem")
        write_key(key, file + "-key.pem")

    leaf("server", "localhost", [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    leaf("other", "other.test", [x509.DNSName("other.test")])


def with_openssl(openssl):
    def run(*arguments):
        subprocess.run([openssl, *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "30",
        "-subj", "/CN=StubKit test CA", "-keyout", path("ca-key.pem"), "-out", path("ca.pem"),
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature")
    for file, common, names in (("server", "localhost", "DNS:localhost,IP:127.0.0.1"), ("other", "other.test", "DNS:other.test")):
        run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=" + common,
            "-keyout", path(file + "-key.pem"), "-out", path(file + ".csr"))
        with open(path(file + ".ext"), "w") as f:
            f.write("subjectAltName=%s\nextendedKeyUsage=serverAuth\n" % names)
        run("x509", "-req", "-in", path(file + ".csr"), "-CA", path("ca.pem"), "-CAkey", path("ca-key.pem"),
            "-CAcreateserial", "-days", "30", "-extfile", path(file + ".ext"), "-out", path(file + ".pem"))


try:
    import cryptography  # noqa: F401
    with_cryptography()
    print("made with cryptography")
except ImportError:
    openssl = shutil.which("openssl")
    if openssl is None:
        print("neither the cryptography package nor the openssl command is available", file=sys.stderr)
        sys.exit(3)
    with_openssl(openssl)
    print("made with openssl")
