import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubURLProtocol {
    /// Which engine a protocol class answers for: what the class in a configuration says.
    enum Route: Equatable {
        /// ``StubURLProtocol`` itself: the engine set by ``StubEngine/register(covering:)``, for
        /// `URLSession.shared` and (on Apple platforms) the configurations the hook covers.
        case processWide
        /// One slot class: the engine that took that slot (``StubEngine/install(into:)``).
        case slot(Int)
        /// Installed when every slot was held by a live engine.
        case overflow
    }

    /// Who answers a request, found from its class's route at the time of the request.
    enum Answerer {
        case engine(StubEngine)
        /// No engine is registered process-wide: such requests go to the network, as without StubKit.
        case unregistered
        /// The engine of this slot has been released while its session still sends requests.
        case released(slot: Int)
        case overflow
    }

    /// The engines of the slot classes.
    package static let slots = Locked(EngineSlots(classes: slotClasses))

    /// Who answers a request of a session whose configuration holds `protocolClass`.
    static func answerer(for protocolClass: StubURLProtocol.Type) -> Answerer {
        switch protocolClass.route {
        case .processWide:
            return currentEngine.map(Answerer.engine) ?? .unregistered
        case .slot(let slot):
            return protocolClass.slotTable.withLock { $0.engine(in: slot) }.map(Answerer.engine) ?? .released(slot: slot)
        case .overflow:
            return .overflow
        }
    }

    /// Whether the protocol takes `request`: what some rule (or the kill switch) of its engine answers,
    /// and every http(s) request of a session whose engine is gone, so that it fails with the reason
    /// rather than reaching the network unstubbed.
    ///
    /// Never a WebSocket (`ws`, `wss`, or an upgrade request, the form Apple's loading system may ask
    /// about): no URL protocol can carry its frames, and taking the handshake only breaks the socket
    /// (see ``WebSocketRoute`` for where the app's WebSockets go under test).
    static func takes(_ request: URLRequest, answerer: Answerer) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        if let upgrade = request.value(forHTTPHeaderField: "Upgrade"),
           upgrade.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" }) {
            return false
        }
        switch answerer {
        case .engine(let engine): return engine.handles(request)
        case .unregistered: return false
        case .released, .overflow: return true
        }
    }

    /// Why a request taken by `answerer` cannot be answered, or `nil` when its engine answers it.
    static func refusal(by answerer: Answerer) -> URLError? {
        let reason: String
        switch answerer {
        case .engine:
            return nil
        case .unregistered:
            reason = "StubKit: no stub engine is active"
        case .released(let slot):
            reason = "StubKit: the StubEngine this session was stubbed by (install(into:) or .stubbed(by:), slot \(slot)) has been released; keep a reference to the engine for as long as its sessions send requests (once a later engine takes the slot, this session would be answered by that engine)"
        case .overflow:
            reason = "StubKit: this session was stubbed while \(EngineSlots.classCount) other StubEngines with sessions of their own were alive, the most StubKit routes at once; release the engines (and sessions) you no longer use"
        }
        return URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: reason])
    }

    /// The class to put in a configuration for `engine`: its slot's, taking one on the first install,
    /// or the overflow class (with a line on standard error) when every slot is held by a live engine.
    static func protocolClass(for engine: StubEngine, in slots: Locked<EngineSlots> = slots) -> StubURLProtocol.Type {
        do {
            return try engine.ownProtocolClass(in: slots)
        } catch {
            FileHandle.standardError.write(Data("StubKit: install(into:) found all \(EngineSlots.classCount) engine slots held by live StubEngines; requests of this configuration's sessions will fail. Release the engines you no longer use.\n".utf8))
            return StubURLProtocolOverflow.self
        }
    }
}

extension StubEngine {
    /// The protocol class of this engine's own slot in `slots`, taking the next free slot the first
    /// time; the engine holds it until it is deinitialized.
    ///
    /// - Throws: `StubKitError` naming the limit when every slot is held by a live engine.
    package func ownProtocolClass(in slots: Locked<EngineSlots> = StubURLProtocol.slots) throws(StubKitError) -> StubURLProtocol.Type {
        guard let slot = slotLease.slot(of: self, in: slots) else {
            throw .noEngineSlot(limit: slots.withLock(\.capacity))
        }
        return slots.withLock { $0.protocolClass(of: slot) }
    }
}
