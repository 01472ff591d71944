import Foundation

/// Whether sessions made from the default and ephemeral configurations are covered, and the one-time
/// install of what covers them (on Apple platforms, ``SessionConfigurationHook``'s getter swap).
///
/// The install happens on the first `setCovering(true)`, and every call that turns coverage on returns
/// only once it is in place: a `register()` on another thread during the first one waits for it, rather
/// than returning while the getters are still the originals (and a configuration made right after it
/// would miss StubKit). ``isCovering`` never waits on the install, so an install that makes a
/// configuration itself cannot deadlock.
final class ConfigurationCoverage: Sendable {
    private let covering = Locked(false)
    /// Whether `install` has run; held for the whole install.
    private let installed = Locked(false)
    private let install: @Sendable () -> Void

    init(install: @escaping @Sendable () -> Void) {
        self.install = install
    }

    var isCovering: Bool { covering.withLock { $0 } }

    func setCovering(_ on: Bool) {
        covering.withLock { $0 = on }
        guard on else { return }
        installed.withLock { installed in
            guard !installed else { return }
            install()
            installed = true
        }
    }
}
