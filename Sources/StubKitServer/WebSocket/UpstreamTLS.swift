#if Tools
import Foundation
import NIOCore
import NIOSSL

/// How a `wss://` relay checks the real server: the system's trust roots plus, when given, a PEM file
/// of extra certificate authorities (a company's private CA, a test's own), the certificate always
/// verified against the host name the app asked for.
///
/// Made once per server (``StubServer/start()``): the context holds the parsed trust roots, and each
/// connection only adds a handler with its host name.
package struct UpstreamTLS: Sendable {
    let context: NIOSSLContext

    /// - Parameter certificateAuthorities: a PEM file whose certificates are trusted besides the system's.
    /// - Throws: ``StubServerError`` naming the file when it cannot be read or holds no certificate.
    package init(certificateAuthorities: String? = nil) throws(StubServerError) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let path = certificateAuthorities {
            configuration.additionalTrustRoots = [.certificates(try Self.certificates(in: path))]
        }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw StubServerError(description: "cannot set up TLS for wss:// upstreams: \(error)")
        }
    }

    static func certificates(in path: String) throws(StubServerError) -> [NIOSSLCertificate] {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StubServerError(description: "\(path): the upstream certificate authorities (--upstream-ca) cannot be read: \((error as NSError).localizedDescription)")
        }
        let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(bytes))
        guard let certificates, !certificates.isEmpty else {
            throw StubServerError(description: "\(path): the upstream certificate authorities (--upstream-ca) hold no PEM certificate (-----BEGIN CERTIFICATE-----), or one that cannot be parsed")
        }
        return certificates
    }

    /// The handler that opens TLS to `host`: its name goes in SNI and is what the certificate must name;
    /// an address is not sent (SNI carries names only) and the certificate must name the address.
    func handler(host: String) throws -> NIOSSLClientHandler {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let isAddress = (try? SocketAddress(ipAddress: bare, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : bare)
    }

    /// A TLS failure in words for the app's developer, or `nil` for an error that is not about TLS.
    static func explain(_ error: any Error, url: URL) -> String? {
        if let error = error as? NIOSSLExtraError {
            if error == .failedToValidateHostname {
                return "the certificate of the real server at \(url.absoluteString) does not name the host '\(url.host ?? "")' (certificate verification failed: host name mismatch)"
            }
            return "the TLS handshake with the real server at \(url.absoluteString) failed: \(error)"
        }
        guard let error = error as? NIOSSLError else { return nil }
        if case .handshakeFailed(let reason) = error, "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
            return "the certificate of the real server at \(url.absoluteString) is not trusted (certificate verification failed: CERTIFICATE_VERIFY_FAILED; no trusted certificate authority signed it, or it has expired); if a private CA signs it, pass that CA's PEM file with --upstream-ca"
        }
        return "the TLS handshake with the real server at \(url.absoluteString) failed: \(error)"
    }
}
#endif
