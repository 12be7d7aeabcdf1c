#!/usr/bin/env bash
# A real WordPress on loopback for the WordPress conformance suite (tests/conformance/).
#
# Debian's `wordpress` package (PHP, MariaDB), served by PHP's built-in server on 127.0.0.1. Every
# step is a no-op when its work is already done (packages installed, database and user present,
# site installed, server answering), and every wait is bounded. On success the last line on
# stdout is the one environment variable the suite reads:
#
#   DH_REAL_WORDPRESS=http://<user>:<application password>@127.0.0.1:<port>
#
# Usage: .ci/real-wordpress.sh            (install if needed, start if needed, print the variable)
#        .ci/real-wordpress.sh stop       (stop the server this script started)
# Needs root (apt-get, /etc/wordpress). Settings: DH_WORDPRESS_PORT (default 8089).
set -euo pipefail

PORT="${DH_WORDPRESS_PORT:-8089}"
HOST="127.0.0.1"
WP=/usr/share/wordpress
CONTENT=/var/lib/wordpress/wp-content
STATE=/var/lib/wordpress/durable-harness
DB_NAME=dh_conformance
DB_USER=dh_conformance
DB_PASS=dh-conformance-loopback
WP_USER=conformance

log() { echo "real-wordpress: $*" >&2; }

mkdir -p "$STATE"
chmod 700 "$STATE"

if [[ "${1:-}" == "stop" ]]; then
    if [[ -f "$STATE/server.pgid" ]]; then
        kill -- "-$(cat "$STATE/server.pgid")" 2>/dev/null || true
        rm -f "$STATE/server.pgid"
        log "stopped"
    fi
    exit 0
fi

# -- packages -----------------------------------------------------------------------------------
if [[ ! -f "$WP/wp-includes/version.php" ]] || ! command -v php >/dev/null || ! php -m | grep -qi '^mysqli$'; then
    log "installing packages (bounded to 15 minutes)"
    made_policy=0
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then  # apache2 comes along: do not let it start on port 80
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 apt-get update -qq >&2 || log "apt-get update failed; trying the cached lists"
    timeout 900 apt-get install -y -qq --no-install-recommends wordpress php-cli php-mysql php-curl php-xml \
        php-mbstring php-gd mariadb-server >&2
    [[ "$made_policy" == 1 ]] && rm -f /usr/sbin/policy-rc.d
fi

# -- database -----------------------------------------------------------------------------------
sql() {  # root over TCP without a password, or over the unix socket
    mysql -h "$HOST" -uroot --connect-timeout=5 -e "$1" 2>/dev/null || mysql -uroot --connect-timeout=5 -e "$1"
}
db_alive() { mysqladmin -h "$HOST" -uroot --connect-timeout=2 ping >/dev/null 2>&1 || mysqladmin -uroot --connect-timeout=2 ping >/dev/null 2>&1; }
if ! db_alive; then
    log "starting MariaDB"
    timeout 60 service mariadb start >&2 || (setsid mysqld_safe >/dev/null 2>&1 < /dev/null &)
    for _ in $(seq 1 60); do db_alive && break; sleep 0.5; done
    db_alive || { log "MariaDB did not answer within 30 s"; exit 1; }
fi
sql "CREATE DATABASE IF NOT EXISTS $DB_NAME DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
     CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
     CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
     ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
     ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
     GRANT ALL PRIVILEGES ON $DB_NAME.* TO '$DB_USER'@'localhost';
     GRANT ALL PRIVILEGES ON $DB_NAME.* TO '$DB_USER'@'127.0.0.1';
     FLUSH PRIVILEGES;"

# -- configuration (Debian reads /etc/wordpress/config-<host>.php) --------------------------------
CONFIG=/etc/wordpress/config-$HOST.php
cat > "$CONFIG.new" <<PHP
<?php
define('DB_NAME', '$DB_NAME');
define('DB_USER', '$DB_USER');
define('DB_PASSWORD', '$DB_PASS');
define('DB_HOST', '$HOST');
define('WP_CONTENT_DIR', '$CONTENT');
define('WP_ENVIRONMENT_TYPE', 'local');
\$dh_host = isset(\$_SERVER['HTTP_HOST']) ? \$_SERVER['HTTP_HOST'] : '$HOST:$PORT';
define('WP_HOME', 'http://' . \$dh_host);
define('WP_SITEURL', 'http://' . \$dh_host);
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_DEBUG', false);
@ini_set('display_errors', '0');
PHP
cmp -s "$CONFIG.new" "$CONFIG" 2>/dev/null && rm "$CONFIG.new" || mv "$CONFIG.new" "$CONFIG"
ln -sf "config-$HOST.php" /etc/wordpress/config-localhost.php

# -- must-use plugins: the operation-key meta and lookup, and strict auth on request ---------------
mkdir -p "$CONTENT/mu-plugins" "$CONTENT/uploads"
chown -R www-data:www-data "$CONTENT/uploads" 2>/dev/null || true
cat > "$CONTENT/mu-plugins/operation-key-meta.php" <<'PHP'
<?php
// The operation key a control plane stores on its posts and uploads, readable and writable over REST.
add_action('init', function () {
    foreach (array('post', 'attachment') as $type) {
        register_post_meta($type, 'operation_key', array('type' => 'string', 'single' => true, 'show_in_rest' => true));
    }
});
PHP
cat > "$CONTENT/mu-plugins/operation-key-query.php" <<'PHP'
<?php
// ?operation_key=K finds the posts and uploads carrying K (core ignores meta parameters). The request
// header "X-DH-Operation-Key-Query: off" makes the site behave as one without this plugin.
foreach (array('post', 'attachment') as $dh_type) {
    add_filter("rest_{$dh_type}_query", function ($args, $request) {
        if (isset($_SERVER['HTTP_X_DH_OPERATION_KEY_QUERY']) && $_SERVER['HTTP_X_DH_OPERATION_KEY_QUERY'] === 'off') {
            return $args;
        }
        $key = $request->get_param('operation_key');
        if (is_string($key) && $key !== '') {
            $args['meta_query'] = array(array('key' => 'operation_key', 'value' => $key));
        }
        return $args;
    }, 10, 2);
    add_filter("rest_{$dh_type}_collection_params", function ($params) {
        $params['operation_key'] = array('description' => 'Only items carrying this operation key.', 'type' => 'string');
        return $params;
    });
}
PHP
cat > "$CONTENT/mu-plugins/rank-math-update-meta.php.new" <<'PHP'
<?php
// A stand-in for Rank Math's POST /rankmath/v1/updateMeta (the route the article workload sets SEO with):
// objectType "post", objectID, meta; only rank_math_* keys are written, an empty value deletes the key,
// the answer is {"slug": true, "schemas": []}. Errors as the plugin's: a missing parameter 400
// rest_missing_callback_param, an empty one 400 rest_invalid_param, an unknown post 404
// rest_post_invalid_id, a visitor 401 rest_cannot_edit.
add_action('rest_api_init', function () {
    register_rest_route('rankmath/v1', '/updateMeta', array(
        'methods' => 'POST',
        'args' => array(
            'objectType' => array('required' => true, 'validate_callback' => 'dh_rank_math_not_empty'),
            'objectID' => array('required' => true, 'validate_callback' => 'dh_rank_math_not_empty'),
            'meta' => array('required' => true, 'validate_callback' => 'dh_rank_math_not_empty'),
        ),
        'permission_callback' => function ($request) {
            $id = (int) $request['objectID'];
            if ($id > 0 && !get_post($id)) {
                return new WP_Error('rest_post_invalid_id', 'Invalid post ID.', array('status' => 404));
            }
            return current_user_can('edit_post', $id) ? true
                : new WP_Error('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', array('status' => rest_authorization_required_code()));
        },
        'callback' => function ($request) {
            $id = (int) $request['objectID'];
            foreach ((array) $request['meta'] as $key => $value) {
                if (strpos($key, 'rank_math_') !== 0) { continue; }
                if ($value === '' || $value === null) { delete_post_meta($id, $key); }
                else { update_post_meta($id, $key, wp_slash((string) $value)); }
            }
            return array('slug' => true, 'schemas' => array());
        },
    ));
});
function dh_rank_math_not_empty($value) {
    return empty($value) && $value !== 0 && $value !== '0'
        ? new WP_Error('rest_invalid_param', 'Sorry, field is empty which is not allowed.') : true;
}
PHP
mv "$CONTENT/mu-plugins/rank-math-update-meta.php.new" "$CONTENT/mu-plugins/rank-math-update-meta.php"
cat > "$CONTENT/mu-plugins/early-auth-on-request.php" <<'PHP'
<?php
// With the request header "X-DH-Auth-Mode: early", resolve the user early in rest_authentication_errors,
// as plugins such as WooCommerce do: bad application passwords then fail with 401 instead of running
// anonymously. Lets one site serve both authentication behaviours to the conformance suite.
add_filter('rest_authentication_errors', function ($result) {
    if (isset($_SERVER['HTTP_X_DH_AUTH_MODE']) && $_SERVER['HTTP_X_DH_AUTH_MODE'] === 'early') {
        get_current_user_id();
    }
    return $result;
}, 10);
PHP

# -- the site, the user and its application password (php-cli, idempotent) ------------------------
cat > "$STATE/install.php" <<'PHP'
<?php
$_SERVER['HTTP_HOST'] = getenv('DH_HOST');
$step = $argv[1];
if ($step === 'install') {
    define('WP_INSTALLING', true);
    require '/usr/share/wordpress/wp-load.php';
    require_once ABSPATH . 'wp-admin/includes/upgrade.php';
    if (!is_blog_installed()) {
        wp_install('Conformance', 'admin', 'admin@example.invalid', false, '', wp_generate_password(24));
    }
    exit(0);
}
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/user.php';
global $wp_rewrite;
if (get_option('permalink_structure') !== '/%postname%/') {
    $wp_rewrite->set_permalink_structure('/%postname%/');
    flush_rewrite_rules(false);
}
$login = getenv('DH_WP_USER');
$user = get_user_by('login', $login);
$uid = $user ? $user->ID : wp_insert_user(array('user_login' => $login, 'user_pass' => wp_generate_password(24),
    'user_email' => $login . '@example.invalid', 'role' => 'administrator'));
if (is_wp_error($uid)) { fwrite(STDERR, $uid->get_error_message() . "\n"); exit(1); }
$stored = getenv('DH_STORED_PASSWORD');
if ($stored) {
    foreach (WP_Application_Passwords::get_user_application_passwords($uid) as $item) {
        if (wp_check_password(preg_replace('/[^a-z\d]/i', '', $stored), $item['password'])) {
            echo $stored;
            exit(0);
        }
    }
}
$created = WP_Application_Passwords::create_new_application_password($uid, array('name' => 'conformance'));
if (is_wp_error($created)) { fwrite(STDERR, $created->get_error_message() . "\n"); exit(1); }
echo $created[0];
PHP
export DH_HOST="$HOST:$PORT" DH_WP_USER="$WP_USER"
timeout 120 php -d display_errors=0 -d sendmail_path=/bin/true "$STATE/install.php" install >&2
STORED=""
[[ -f "$STATE/app-password" ]] && STORED="$(cat "$STATE/app-password")"
PASSWORD="$(DH_STORED_PASSWORD="$STORED" timeout 120 php -d display_errors=0 -d sendmail_path=/bin/true "$STATE/install.php" user)"
[[ -n "$PASSWORD" ]] || { log "no application password"; exit 1; }
umask 077
printf '%s' "$PASSWORD" > "$STATE/app-password"

# -- serving ----------------------------------------------------------------------------------------
cat > "$STATE/router.php" <<'PHP'
<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if (strpos($path, '/wp-content/') === 0) {
    $file = '/var/lib/wordpress' . $path;
    if (is_file($file) && strpos(realpath($file), '/var/lib/wordpress/wp-content/') === 0) {
        $type = function_exists('mime_content_type') ? mime_content_type($file) : 'application/octet-stream';
        header('Content-Type: ' . $type);
        header('Content-Length: ' . filesize($file));
        readfile($file);
        return true;
    }
}
if ($path !== '/' && is_file('/usr/share/wordpress' . $path) && substr($path, -4) !== '.php') {
    return false;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['PHP_SELF'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = '/usr/share/wordpress/index.php';
chdir('/usr/share/wordpress');
require '/usr/share/wordpress/index.php';
PHP
ready() { curl -fsS --max-time 5 "http://$HOST:$PORT/wp-json/?_fields=name" >/dev/null 2>&1; }
if ! ready; then
    log "starting the server on $HOST:$PORT"
    cd "$STATE"
    PHP_CLI_SERVER_WORKERS=4 setsid php -d display_errors=0 -S "$HOST:$PORT" -t "$WP" "$STATE/router.php" \
        > "$STATE/server.log" 2>&1 < /dev/null &
    echo $! > "$STATE/server.pgid"  # setsid makes the server the leader of its own process group
    for _ in $(seq 1 60); do ready && break; sleep 0.5; done
    ready || { log "the server did not answer within 30 s; see $STATE/server.log"; exit 1; }
fi
ME="$(curl -fsS --max-time 5 -u "$WP_USER:$PASSWORD" "http://$HOST:$PORT/wp-json/wp/v2/users/me?_fields=id" || true)"
[[ "$ME" == *'"id"'* ]] || { log "the application password was refused: $ME"; exit 1; }
log "ready: WordPress $(php -r 'include "/usr/share/wordpress/wp-includes/version.php"; echo $wp_version;') on $HOST:$PORT"
echo "DH_REAL_WORDPRESS=http://$WP_USER:${PASSWORD// /}@$HOST:$PORT"
