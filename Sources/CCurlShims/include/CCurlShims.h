#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H

#include <curl/curl.h>

/* Typed wrappers over libcurl's variadic setters and getters, which Swift cannot call. */

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_write_function(CURL *handle, curl_write_callback callback);
CURLcode ccurl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback);
CURLcode ccurl_easy_setopt_read_function(CURL *handle, curl_read_callback callback);
CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback);
CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

/* Returns the next finished transfer of the multi handle, or NULL when none is left. */
CURL *ccurl_multi_next_done(CURLM *handle, CURLcode *result);

#endif
