export declare const SDK_VERSION = "txray-js/0.4.0";
