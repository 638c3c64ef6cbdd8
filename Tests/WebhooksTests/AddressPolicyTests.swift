import Testing
import Webhooks

@Suite struct AddressPolicyTests {
    @Test(arguments: [
        ("8.8.8.8", "public"), ("1.1.1.1", "public"), ("2606:4700:4700::1111", "public"),
        ("10.0.0.1", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"), ("172.32.0.1", "public"),
        ("192.168.1.1", "private"), ("100.64.0.1", "private"), ("100.127.255.255", "private"), ("100.128.0.1", "public"),
        ("fc00::1", "private"), ("fd12:3456::1", "private"), ("fec0::1", "private"),
        ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("::1", "loopback"),
        ("169.254.169.254", "link-local"), ("fe80::1", "link-local"), ("febf::1", "link-local"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"), ("0.1.2.3", "unspecified"), ("::", "unspecified"),
        ("255.255.255.255", "broadcast"),
        ("192.0.2.1", "reserved"), ("198.51.100.7", "reserved"), ("203.0.113.9", "reserved"), ("198.18.0.1", "reserved"),
        ("240.0.0.1", "reserved"), ("192.0.0.8", "reserved"), ("2001:db8::1", "reserved"), ("2001::1", "reserved"),
        ("100::1", "reserved"), ("64:ff9b:1::1", "reserved"), ("3fff::1", "reserved"), ("3fff:fff::1", "reserved"),
        ("3fff:1000::1", "public"), ("3ffe::1", "public"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.1.2.3", "private"), ("::ffff:8.8.8.8", "public"),
        ("::ffff:0:169.254.1.1", "link-local"), ("::10.0.0.1", "private"), ("::127.0.0.1", "loopback"),
        ("64:ff9b::127.0.0.1", "loopback"), ("64:ff9b::8.8.8.8", "public"),
        ("2002:7f00:1::", "loopback"), ("2002:0a00:0001::1", "private"), ("2002:0808:0808::1", "public"),
    ])
    func classifies(_ text: String, _ category: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressPolicy.classify(address).category.rawValue == category)
    }

    @Test func embeddedFormsNameTheAddressTheyEmbed() throws {
        let address = try #require(IPAddress("::ffff:127.0.0.1"))
        let refusal = try #require(AddressPolicy.strict.refusal(of: address))
        #expect(refusal.code == .forbiddenAddress)
        #expect(refusal.detail.contains("loopback"))
        #expect(refusal.detail.contains("127.0.0.1"))
    }

    @Test func parsesAndPrintsAddresses() throws {
        #expect(IPAddress("[::1]") == IPAddress("::1"))
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("256.1.1.1") == nil)
        #expect(try #require(IPAddress("10.20.30.40")).description == "10.20.30.40")
        #expect(try #require(IPAddress("2001:DB8:0:0::1")).description == "2001:db8::1")
    }

    @Test(arguments: [
        "https://127.0.0.1/hook", "https://[::1]/hook", "https://10.0.0.1/hook", "https://[::ffff:127.0.0.1]/hook",
        "https://localhost/hook", "https://169.254.169.254/latest/meta-data", "https://0x7f000001/hook",
        "https://2130706433/hook", "https://[fe80::1]/", "https://224.0.0.1/",
    ])
    func strictPolicyRefusesNonPublicDestinations(_ url: String) {
        do {
            _ = try AddressPolicy.strict.validate(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.code == .forbiddenAddress, "\(url): \(error)")
        }
    }

    @Test func aNameThatResolvesToAPrivateAddressIsRefusedWithoutNamingIt() {
        do {
            _ = try AddressPolicy.strict.validate(url: "https://localhost/hook")
            Issue.record("localhost was accepted")
        } catch {
            #expect(error.code == .forbiddenAddress)
            #expect(error.detail.contains("localhost") && error.detail.contains("not public"))
            #expect(!error.detail.contains("127.0.0.1") && !error.detail.contains("::1"), "\(error.detail)")
            #expect(!error.description.contains("127.0.0.1") && !error.description.contains("::1"))
            // The log may say which.
            let logged = error.logDetail ?? ""
            #expect(logged.contains("127.0.0.1") || logged.contains("::1"), "\(logged)")
        }
    }

    @Test func strictPolicyAcceptsPublicHTTPSAndRefusesHTTP() throws {
        #expect(try AddressPolicy.strict.validate(url: "https://8.8.8.8/hook").absoluteString == "https://8.8.8.8/hook")
        #expect(try AddressPolicy.strict.validate(url: "https://[2606:4700:4700::1111]:8443/x").port == 8443)
        for (url, code) in [("http://8.8.8.8/hook", WebhookError.Code.insecureScheme), ("ftp://8.8.8.8/", .insecureScheme),
                            ("not a url", .invalidURL), ("https:///path", .invalidURL),
                            ("https://user:hunter2@8.8.8.8/hook", .invalidURL), ("https://user@8.8.8.8/", .invalidURL),
                            ("https://:hunter2@8.8.8.8/", .invalidURL), ("https://user:hunter2@/x", .invalidURL),
                            // libcurl would refuse these ports at every send, for a day of retries.
                            ("https://8.8.8.8:0/", .invalidURL), ("https://8.8.8.8:65536/", .invalidURL),
                            ("https://8.8.8.8:99999999999/", .invalidURL)] {
            do {
                _ = try AddressPolicy.strict.validate(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.code == code, "\(url): \(error)")
                #expect(!error.detail.contains("hunter2"), "\(url): \(error)")
            }
        }
    }

    /// Spaces and control characters are refused when the endpoint is created, not found out by every
    /// send for a day (libcurl refuses them; SQLite would cut the stored text at a NUL).
    @Test func spacesAndControlCharactersAreRefused() throws {
        let open = AddressPolicy(allowInsecure: true, allowPrivate: true)
        for url in ["http://127.0.0.1:9/ok\r\nX-Evil: 1", "http://127.0.0.1:9/ok x", "http://127.0.0.1:9/ok\t",
                    "http://127.0.0.1:9/ok\u{0}x", "http://127.0.0.1:9/ok\u{7F}", " http://127.0.0.1:9/ok"] {
            #expect(throws: WebhookError.self, "\(url.debugDescription)") { try open.validate(url: url) }
            do { _ = try open.validate(url: url) } catch { #expect(error.code == .invalidURL) }
        }
        #expect(try open.validate(url: "http://127.0.0.1:9/ok%20x").path == "/ok x")
        #expect(try open.validate(url: "http://127.0.0.1:65535/").port == 65535)
        do {
            _ = try open.validate(url: "gopher://127.0.0.1/")
            Issue.record("gopher was accepted")
        } catch {
            #expect(error.detail == "Webhook URLs must use https or http, not gopher.")
        }
    }

    @Test func credentialsAreLeftOutWhenAURLIsShown() {
        #expect(AddressPolicy.withoutCredentials("https://user:hunter2@example.com:8443/hook?a=1") == "https://example.com:8443/hook?a=1")
        #expect(AddressPolicy.withoutCredentials("https://example.com/hook") == "https://example.com/hook")
        #expect(AddressPolicy.withoutCredentials("not a url") == "not a url")
    }

    @Test func theSwitchesAllowHTTPAndPrivateButNeverLinkLocalOrMulticast() throws {
        let open = AddressPolicy(allowInsecure: true, allowPrivate: true)
        #expect(throws: Never.self) { try open.validate(url: "http://127.0.0.1:8080/hook") }
        #expect(throws: Never.self) { try open.validate(url: "http://localhost:8080/hook") }
        #expect(throws: Never.self) { try open.validate(url: "https://10.0.0.1/hook") }
        #expect(throws: Never.self) { try open.validate(url: "http://[::1]:9/hook") }
        #expect(throws: WebhookError.self) { try open.validate(url: "http://169.254.169.254/") }
        #expect(throws: WebhookError.self) { try open.validate(url: "http://[ff02::1]/") }
        #expect(throws: WebhookError.self) { try open.validate(url: "http://0.0.0.0/") }
        let insecureOnly = AddressPolicy(allowInsecure: true)
        #expect(throws: WebhookError.self) { try insecureOnly.validate(url: "http://127.0.0.1/") }
    }
}
