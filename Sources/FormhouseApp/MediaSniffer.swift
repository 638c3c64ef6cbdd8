import Foundation

/// What a file's first bytes say it is, by the signatures of the formats people upload: a client's
/// `Content-Type` is a claim, and a page of HTML sent as `image/jpeg` must not be kept as a photo.
enum MediaSniffer {
    /// Bytes to look at: enough for every signature below.
    static let prefixLength = 512

    /// The media type the bytes' own signature names, or nil when they carry none this knows.
    static func mediaType(of bytes: ArraySlice<UInt8>) -> String? {
        let b = Array(bytes.prefix(prefixLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + signature.count && Array(b[offset..<(offset + signature.count)]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            switch String(decoding: b[8..<12], as: UTF8.self) {
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return "image/heic"
            case "mif1", "msf1": return "image/heif"
            case "avif", "avis": return "image/avif"
            case "qt  ": return "video/quicktime"
            case "isom", "iso2", "mp41", "mp42", "avc1", "M4V ", "dash", "3gp4", "3gp5": return "video/mp4"
            case "M4A ": return "audio/mp4"
            default: return nil
            }
        }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts(Array("II*\u{0}".utf8)) || starts(Array("MM\u{0}*".utf8)) { return "image/tiff" }
        if starts(Array("BM".utf8)), b.count >= 14 { return "image/bmp" }
        if starts([0x00, 0x00, 0x01, 0x00]) { return "image/x-icon" }
        return markupType(b)
    }

    /// Whether `declared` is contradicted by `sniffed`: a type with a signature must have its own (or
    /// one the bytes cannot tell from it), an image must be an image this knows, and nothing but
    /// HTML may turn out to be markup.
    static func contradicts(declared: String, sniffed: String?) -> Bool {
        let declared = canonical(declared)
        guard let sniffed else { return hasSignature(declared) || declared.hasPrefix("image/") }
        if compatible(declared, sniffed) { return false }
        if sniffed == "text/html" { return true }
        return hasSignature(declared) || declared.hasPrefix("image/") || declared.hasPrefix("video/") || declared.hasPrefix("audio/")
    }

    /// The type to keep: the declared one when the bytes agree with it (it can say more than the
    /// signature: a `.docx` is a ZIP archive inside), the signature's when they say otherwise.
    static func storedType(declared: String, sniffed: String?) -> String {
        let declared = canonical(declared)
        guard let sniffed, !compatible(declared, sniffed) else { return declared }
        return sniffed
    }

    /// `type/subtype` in lowercase, without parameters.
    static func essence(_ mediaType: String) -> String {
        let base = mediaType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? mediaType
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The essence, with the common aliases of a type spelled its registered way.
    static func canonical(_ mediaType: String) -> String {
        let type = essence(mediaType)
        return aliases[type] ?? type
    }

    /// Whether `mediaType` is well formed (`type/subtype`, token characters).
    static func isWellFormed(_ mediaType: String) -> Bool {
        let parts = essence(mediaType).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 127 && part.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || "!#$&-^_.+".utf8.contains(byte)
            }
        }
    }

    private static let aliases: [String: String] = [
        "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png",
        "image/vnd.microsoft.icon": "image/x-icon", "image/x-ms-bmp": "image/bmp", "application/x-pdf": "application/pdf",
        "text/xml": "application/xml", "audio/x-m4a": "audio/mp4", "audio/m4a": "audio/mp4",
    ]

    /// Whether bytes of the sniffed type may honestly be labelled `declared`: the same format, one
    /// of a family whose members share a signature, or a container whose content `declared` names.
    private static func compatible(_ declared: String, _ sniffed: String) -> Bool {
        if declared == sniffed { return true }
        for family in families where family.contains(sniffed) && family.contains(declared) { return true }
        switch sniffed {
        case "application/zip":
            return declared.hasPrefix("application/vnd.openxmlformats-officedocument.")
                || declared.hasPrefix("application/vnd.oasis.opendocument.")
                || ["application/epub+zip", "application/java-archive", "application/vnd.android.package-archive",
                    "application/x-zip-compressed", "model/vnd.usdz+zip"].contains(declared)
        case "image/tiff":
            // Camera raw formats are TIFF files inside.
            return ["image/x-adobe-dng", "image/dng", "image/x-canon-cr2", "image/x-nikon-nef", "image/x-sony-arw",
                    "image/x-panasonic-rw2", "image/x-olympus-orf", "image/x-pentax-pef"].contains(declared)
        default:
            return false
        }
    }

    /// Formats whose files begin alike: HEIF's brands (HEIC, AVIF, sequences) and ISO media files.
    private static let families: [Set<String>] = [
        ["image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence", "image/avif", "image/avif-sequence"],
        ["video/mp4", "video/quicktime", "audio/mp4", "video/x-m4v", "video/3gpp", "video/3gpp2"],
    ]

    private static let signed: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif", "image/tiff",
        "image/bmp", "image/x-icon", "application/pdf", "application/zip", "video/mp4", "video/quicktime", "audio/mp4",
    ]

    private static func hasSignature(_ mediaType: String) -> Bool {
        signed.contains(mediaType)
    }

    /// SVG, other XML, or markup a browser would render as a page (WHATWG MIME Sniffing's HTML
    /// patterns, each followed by a space or `>`): what an upload disguised as an image usually is.
    private static func markupType(_ bytes: [UInt8]) -> String? {
        var text = Substring(String(decoding: bytes, as: UTF8.self).lowercased())
        if text.hasPrefix("\u{feff}") { text = text.dropFirst() }
        text = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{0C}" }
        if text.hasPrefix("<svg") || (text.hasPrefix("<?xml") && text.contains("<svg")) { return "image/svg+xml" }
        if text.hasPrefix("<?xml") { return "application/xml" }
        if text.hasPrefix("<!--") { return "text/html" }
        for tag in htmlTags where text.hasPrefix(tag) {
            let next = text.dropFirst(tag.count).first
            if next == " " || next == ">" { return "text/html" }
        }
        return nil
    }

    private static let htmlTags = [
        "<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font", "<table", "<a", "<style",
        "<title", "<b", "<body", "<br", "<p",
    ]
}
