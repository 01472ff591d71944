// The slot classes of StubURLProtocol: one per engine that has sessions of its own (see `EngineSlots`).
// Each only says which slot it is; all the serving is StubURLProtocol's.

extension StubURLProtocol {
    /// The slot classes, in slot order.
    static let slotClasses: [StubURLProtocol.Type] = [
        StubURLProtocolSlot0.self,
        StubURLProtocolSlot1.self,
        StubURLProtocolSlot2.self,
        StubURLProtocolSlot3.self,
        StubURLProtocolSlot4.self,
        StubURLProtocolSlot5.self,
        StubURLProtocolSlot6.self,
        StubURLProtocolSlot7.self,
        StubURLProtocolSlot8.self,
        StubURLProtocolSlot9.self,
        StubURLProtocolSlot10.self,
        StubURLProtocolSlot11.self,
        StubURLProtocolSlot12.self,
        StubURLProtocolSlot13.self,
        StubURLProtocolSlot14.self,
        StubURLProtocolSlot15.self,
        StubURLProtocolSlot16.self,
        StubURLProtocolSlot17.self,
        StubURLProtocolSlot18.self,
        StubURLProtocolSlot19.self,
        StubURLProtocolSlot20.self,
        StubURLProtocolSlot21.self,
        StubURLProtocolSlot22.self,
        StubURLProtocolSlot23.self,
        StubURLProtocolSlot24.self,
        StubURLProtocolSlot25.self,
        StubURLProtocolSlot26.self,
        StubURLProtocolSlot27.self,
        StubURLProtocolSlot28.self,
        StubURLProtocolSlot29.self,
        StubURLProtocolSlot30.self,
        StubURLProtocolSlot31.self,
        StubURLProtocolSlot32.self,
        StubURLProtocolSlot33.self,
        StubURLProtocolSlot34.self,
        StubURLProtocolSlot35.self,
        StubURLProtocolSlot36.self,
        StubURLProtocolSlot37.self,
        StubURLProtocolSlot38.self,
        StubURLProtocolSlot39.self,
        StubURLProtocolSlot40.self,
        StubURLProtocolSlot41.self,
        StubURLProtocolSlot42.self,
        StubURLProtocolSlot43.self,
        StubURLProtocolSlot44.self,
        StubURLProtocolSlot45.self,
        StubURLProtocolSlot46.self,
        StubURLProtocolSlot47.self,
        StubURLProtocolSlot48.self,
        StubURLProtocolSlot49.self,
        StubURLProtocolSlot50.self,
        StubURLProtocolSlot51.self,
        StubURLProtocolSlot52.self,
        StubURLProtocolSlot53.self,
        StubURLProtocolSlot54.self,
        StubURLProtocolSlot55.self,
        StubURLProtocolSlot56.self,
        StubURLProtocolSlot57.self,
        StubURLProtocolSlot58.self,
        StubURLProtocolSlot59.self,
        StubURLProtocolSlot60.self,
        StubURLProtocolSlot61.self,
        StubURLProtocolSlot62.self,
        StubURLProtocolSlot63.self,
    ]
}

/// Put in a configuration when every slot was held by a live engine: its requests are refused, naming the limit.
final class StubURLProtocolOverflow: StubURLProtocol {
    override class var route: Route { .overflow }
}

final class StubURLProtocolSlot0: StubURLProtocol { override class var route: Route { .slot(0) } }
final class StubURLProtocolSlot1: StubURLProtocol { override class var route: Route { .slot(1) } }
final class StubURLProtocolSlot2: StubURLProtocol { override class var route: Route { .slot(2) } }
final class StubURLProtocolSlot3: StubURLProtocol { override class var route: Route { .slot(3) } }
final class StubURLProtocolSlot4: StubURLProtocol { override class var route: Route { .slot(4) } }
final class StubURLProtocolSlot5: StubURLProtocol { override class var route: Route { .slot(5) } }
final class StubURLProtocolSlot6: StubURLProtocol { override class var route: Route { .slot(6) } }
final class StubURLProtocolSlot7: StubURLProtocol { override class var route: Route { .slot(7) } }
final class StubURLProtocolSlot8: StubURLProtocol { override class var route: Route { .slot(8) } }
final class StubURLProtocolSlot9: StubURLProtocol { override class var route: Route { .slot(9) } }
final class StubURLProtocolSlot10: StubURLProtocol { override class var route: Route { .slot(10) } }
final class StubURLProtocolSlot11: StubURLProtocol { override class var route: Route { .slot(11) } }
final class StubURLProtocolSlot12: StubURLProtocol { override class var route: Route { .slot(12) } }
final class StubURLProtocolSlot13: StubURLProtocol { override class var route: Route { .slot(13) } }
final class StubURLProtocolSlot14: StubURLProtocol { override class var route: Route { .slot(14) } }
final class StubURLProtocolSlot15: StubURLProtocol { override class var route: Route { .slot(15) } }
final class StubURLProtocolSlot16: StubURLProtocol { override class var route: Route { .slot(16) } }
final class StubURLProtocolSlot17: StubURLProtocol { override class var route: Route { .slot(17) } }
final class StubURLProtocolSlot18: StubURLProtocol { override class var route: Route { .slot(18) } }
final class StubURLProtocolSlot19: StubURLProtocol { override class var route: Route { .slot(19) } }
final class StubURLProtocolSlot20: StubURLProtocol { override class var route: Route { .slot(20) } }
final class StubURLProtocolSlot21: StubURLProtocol { override class var route: Route { .slot(21) } }
final class StubURLProtocolSlot22: StubURLProtocol { override class var route: Route { .slot(22) } }
final class StubURLProtocolSlot23: StubURLProtocol { override class var route: Route { .slot(23) } }
final class StubURLProtocolSlot24: StubURLProtocol { override class var route: Route { .slot(24) } }
final class StubURLProtocolSlot25: StubURLProtocol { override class var route: Route { .slot(25) } }
final class StubURLProtocolSlot26: StubURLProtocol { override class var route: Route { .slot(26) } }
final class StubURLProtocolSlot27: StubURLProtocol { override class var route: Route { .slot(27) } }
final class StubURLProtocolSlot28: StubURLProtocol { override class var route: Route { .slot(28) } }
final class StubURLProtocolSlot29: StubURLProtocol { override class var route: Route { .slot(29) } }
final class StubURLProtocolSlot30: StubURLProtocol { override class var route: Route { .slot(30) } }
final class StubURLProtocolSlot31: StubURLProtocol { override class var route: Route { .slot(31) } }
final class StubURLProtocolSlot32: StubURLProtocol { override class var route: Route { .slot(32) } }
final class StubURLProtocolSlot33: StubURLProtocol { override class var route: Route { .slot(33) } }
final class StubURLProtocolSlot34: StubURLProtocol { override class var route: Route { .slot(34) } }
final class StubURLProtocolSlot35: StubURLProtocol { override class var route: Route { .slot(35) } }
final class StubURLProtocolSlot36: StubURLProtocol { override class var route: Route { .slot(36) } }
final class StubURLProtocolSlot37: StubURLProtocol { override class var route: Route { .slot(37) } }
final class StubURLProtocolSlot38: StubURLProtocol { override class var route: Route { .slot(38) } }
final class StubURLProtocolSlot39: StubURLProtocol { override class var route: Route { .slot(39) } }
final class StubURLProtocolSlot40: StubURLProtocol { override class var route: Route { .slot(40) } }
final class StubURLProtocolSlot41: StubURLProtocol { override class var route: Route { .slot(41) } }
final class StubURLProtocolSlot42: StubURLProtocol { override class var route: Route { .slot(42) } }
final class StubURLProtocolSlot43: StubURLProtocol { override class var route: Route { .slot(43) } }
final class StubURLProtocolSlot44: StubURLProtocol { override class var route: Route { .slot(44) } }
final class StubURLProtocolSlot45: StubURLProtocol { override class var route: Route { .slot(45) } }
final class StubURLProtocolSlot46: StubURLProtocol { override class var route: Route { .slot(46) } }
final class StubURLProtocolSlot47: StubURLProtocol { override class var route: Route { .slot(47) } }
final class StubURLProtocolSlot48: StubURLProtocol { override class var route: Route { .slot(48) } }
final class StubURLProtocolSlot49: StubURLProtocol { override class var route: Route { .slot(49) } }
final class StubURLProtocolSlot50: StubURLProtocol { override class var route: Route { .slot(50) } }
final class StubURLProtocolSlot51: StubURLProtocol { override class var route: Route { .slot(51) } }
final class StubURLProtocolSlot52: StubURLProtocol { override class var route: Route { .slot(52) } }
final class StubURLProtocolSlot53: StubURLProtocol { override class var route: Route { .slot(53) } }
final class StubURLProtocolSlot54: StubURLProtocol { override class var route: Route { .slot(54) } }
final class StubURLProtocolSlot55: StubURLProtocol { override class var route: Route { .slot(55) } }
final class StubURLProtocolSlot56: StubURLProtocol { override class var route: Route { .slot(56) } }
final class StubURLProtocolSlot57: StubURLProtocol { override class var route: Route { .slot(57) } }
final class StubURLProtocolSlot58: StubURLProtocol { override class var route: Route { .slot(58) } }
final class StubURLProtocolSlot59: StubURLProtocol { override class var route: Route { .slot(59) } }
final class StubURLProtocolSlot60: StubURLProtocol { override class var route: Route { .slot(60) } }
final class StubURLProtocolSlot61: StubURLProtocol { override class var route: Route { .slot(61) } }
final class StubURLProtocolSlot62: StubURLProtocol { override class var route: Route { .slot(62) } }
final class StubURLProtocolSlot63: StubURLProtocol { override class var route: Route { .slot(63) } }
