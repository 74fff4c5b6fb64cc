/* wl_output: each output's name and transform, in force at done. */
#include "session.h"

#include <string.h>

static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw, int32_t ph,
                            int32_t subpixel, const char *make, const char *model, int32_t transform) {
    (void)o, (void)x, (void)y, (void)pw, (void)ph, (void)subpixel, (void)make, (void)model;
    struct cwl_output *out = data;
    out->pending_transform = transform;
    if (out->version < 2 && out->transform != transform) {
        out->transform = transform;
        out->owner->changes |= CWL_OUTPUTS;
    }
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h, int32_t refresh) {
    (void)data, (void)o, (void)flags, (void)w, (void)h, (void)refresh;
}

static void output_done(void *data, struct wl_output *o) {
    (void)o;
    struct cwl_output *out = data;
    if (out->transform != out->pending_transform) {
        out->transform = out->pending_transform;
        out->owner->changes |= CWL_OUTPUTS;
    }
}

static void output_scale(void *data, struct wl_output *o, int32_t factor) { (void)data, (void)o, (void)factor; }

static void output_name(void *data, struct wl_output *o, const char *name) {
    (void)o;
    struct cwl_output *out = data;
    if (!name) return;
    strncpy(out->name, name, sizeof out->name - 1);
    out->name[sizeof out->name - 1] = 0;
    out->owner->changes |= CWL_OUTPUTS;
}

static void output_description(void *data, struct wl_output *o, const char *d) { (void)data, (void)o, (void)d; }

static const struct wl_output_listener output_listener = {
    .geometry = output_geometry,
    .mode = output_mode,
    .done = output_done,
    .scale = output_scale,
    .name = output_name,
    .description = output_description,
};

int cwl_output_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version) {
    if (strcmp(interface, wl_output_interface.name) != 0) return 0;
    if (s->output_count >= CWL_MAX_OUTPUTS) return 1;
    struct cwl_output *out = &s->outputs[s->output_count];
    memset(out, 0, sizeof *out);
    out->owner = s;
    out->global = global;
    out->version = version < 4 ? version : 4;
    out->proxy = wl_registry_bind(s->registry, global, &wl_output_interface, out->version);
    if (!out->proxy) return 1;
    wl_output_add_listener(out->proxy, &output_listener, out);
    s->output_count++;
    s->changes |= CWL_OUTPUTS;
    return 1;
}

static void release(struct cwl_output *out) {
    cwl_pointer_forget(out);
    if (out->version >= 3) wl_output_release(out->proxy); else wl_output_destroy(out->proxy);
}

int cwl_output_global_remove(struct cwl_session *s, uint32_t global) {
    for (int i = 0; i < s->output_count; i++) {
        if (s->outputs[i].global != global) continue;
        release(&s->outputs[i]);
        /* The last output moves into the gap; its listener data moves with it. */
        s->output_count--;
        if (i != s->output_count) {
            s->outputs[i] = s->outputs[s->output_count];
            wl_proxy_set_user_data((struct wl_proxy *)s->outputs[i].proxy, &s->outputs[i]);
        }
        s->changes |= CWL_OUTPUTS;
        return 1;
    }
    return 0;
}

void cwl_outputs_release(struct cwl_session *s) {
    for (int i = 0; i < s->output_count; i++) release(&s->outputs[i]);
    s->output_count = 0;
}

int cwl_output_count(struct cwl_session *s) { return s->output_count; }

const char *cwl_output_name(struct cwl_session *s, int i) {
    return i >= 0 && i < s->output_count ? s->outputs[i].name : "";
}

int cwl_output_transform(struct cwl_session *s, int i) {
    return i >= 0 && i < s->output_count ? s->outputs[i].transform : 0;
}
