import Foundation
import Testing
@testable import FormhouseApp

/// The type an upload is kept as, from what the client says and what its first bytes are.
@Suite struct MediaSnifferTests {
    static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 26)
    static let tiff: [UInt8] = Array("II*\u{0}".utf8) + [8, 0, 0, 0]
    static func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] }

    /// (declared type, bytes, the type kept), for uploads that must be taken.
    static let taken: [(String, [UInt8], String)] = [
        ("image/jpeg", FileFixtures.jpeg, "image/jpeg"),
        ("image/jpg", FileFixtures.jpeg, "image/jpeg"),
        ("image/pjpeg", FileFixtures.jpeg, "image/jpeg"),
        ("image/x-png", FileFixtures.png, "image/png"),
        ("application/octet-stream", FileFixtures.png, "image/png"),
        ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", zip,
         "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("application/vnd.oasis.opendocument.text", zip, "application/vnd.oasis.opendocument.text"),
        ("application/epub+zip", zip, "application/epub+zip"),
        ("image/avif", ftyp("mif1"), "image/avif"),
        ("image/heic-sequence", ftyp("msf1"), "image/heic-sequence"),
        ("image/heif", ftyp("heic"), "image/heif"),
        ("image/x-adobe-dng", tiff, "image/x-adobe-dng"),
        ("video/quicktime", ftyp("qt  "), "video/quicktime"),
        ("image/svg+xml", Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), "image/svg+xml"),
        ("text/plain", Array("Just some notes.".utf8), "text/plain"),
        ("text/csv", Array("a,b\n1,2\n".utf8), "text/csv"),
        ("application/pdf", FileFixtures.pdf, "application/pdf"),
    ]

    /// (declared type, bytes), for uploads that must be refused.
    static let refused: [(String, [UInt8])] = [
        ("image/jpeg", FileFixtures.html),
        ("image/png", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)),
        ("image/png", FileFixtures.jpeg),
        ("image/x-icon", Array("not an icon at all".utf8)),
        ("image/x-made-up", Array("random bytes".utf8)),
        ("application/pdf", Array("no signature here".utf8)),
        ("image/gif", Array("<!-- a comment --><b>bold</b>".utf8)),
        ("text/plain", Array("<p>a paragraph</p>".utf8)),
        ("video/mp4", FileFixtures.png),
    ]

    @Test func typesThatTheBytesBearOutAreKept() {
        for (declared, bytes, kept) in Self.taken {
            let sniffed = MediaSniffer.mediaType(of: bytes[...])
            #expect(!MediaSniffer.contradicts(declared: declared, sniffed: sniffed), "\(declared) refused (sniffed \(sniffed ?? "nothing"))")
            #expect(MediaSniffer.storedType(declared: declared, sniffed: sniffed) == kept, "\(declared)")
        }
    }

    @Test func typesThatTheBytesContradictAreRefused() {
        for (declared, bytes) in Self.refused {
            let sniffed = MediaSniffer.mediaType(of: bytes[...])
            #expect(MediaSniffer.contradicts(declared: declared, sniffed: sniffed), "\(declared) taken (sniffed \(sniffed ?? "nothing"))")
        }
    }
}
